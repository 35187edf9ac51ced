import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/** Seals short secrets with AES-256-GCM under a key derived from a passphrase (HKDF-SHA256): `v1.<iv>.<tag>.<ciphertext>`. */
export class SecretBox {
  private readonly key: Buffer;

  /** @param passphrase - the configured key. @param purpose - separates keys derived from one passphrase. */
  constructor(passphrase: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', passphrase, 'authgate', purpose, 32));
  }

  /** Encrypts `text`. */
  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** Decrypts what `seal` made; throws for anything else or another key. */
  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
