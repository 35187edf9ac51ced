import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';

/** DER: a tag and its content, with the length in its short or long form. */
function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : n < 0x10000 ? Buffer.from([0x82, n >> 8, n & 0xff]) : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const sequence = (...parts: Buffer[]): Buffer => der(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]): Buffer => der(0x31, Buffer.concat(parts));
const NULL = Buffer.from([0x05, 0x00]);

/** A non-negative INTEGER of these bytes (a leading zero keeps a high bit from reading as negative). */
function integer(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return der(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

/** An OBJECT IDENTIFIER in dotted form. */
function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const n of rest) {
    const base128 = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280, 4.1.2.5). */
function time(at: Date): Buffer {
  const iso = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return at.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), NULL);

/** A name of one common name (`CN=...`), as UTF8String. */
const commonName = (cn: string): Buffer => sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));

/**
 * A self-signed X.509 v3 certificate (DER) for an RSA key pair, signed with SHA-256: what a SAML
 * peer pins in metadata. Made with node:crypto alone.
 */
export function selfSignedCertificate(options: { commonName: string; privateKey: KeyObject | string; serial: Buffer; notBefore: Date; notAfter: Date }): Buffer {
  const privateKey = typeof options.privateKey === 'string' ? createPrivateKey(options.privateKey) : options.privateKey;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const name = commonName(options.commonName);
  const tbs = sequence(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(options.serial),
    SHA256_WITH_RSA,
    name,
    sequence(time(options.notBefore), time(options.notAfter)),
    name,
    spki,
  );
  const signature = sign('sha256', tbs, privateKey);
  return sequence(tbs, SHA256_WITH_RSA, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
}
