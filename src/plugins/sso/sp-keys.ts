import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { selfSignedCertificate } from './self-signed';

/** A service provider's key pair for one connection: it signs AuthnRequests and decrypts assertions. */
export interface SpKeys {
  /** PKCS#8 PEM. */
  privateKey: string;
  /** The self-signed certificate, base64 DER (as metadata carries it). */
  certificate: string;
}

const TEN_YEARS_MS = 10 * 365 * 24 * 3600_000;
const makeKeyPair = promisify(generateKeyPair);

/**
 * Makes a connection's key pair and a self-signed certificate of it: SAML peers trust the
 * certificate pinned in metadata, not a chain, so a fresh one per connection isolates customers
 * (one customer's IT never holds a key that works for another's connection).
 */
export async function makeSpKeys(connectionId: string): Promise<SpKeys> {
  const { privateKey } = await makeKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const now = Date.now();
  const cert = selfSignedCertificate({ commonName: `authgate SSO ${connectionId}`, privateKey, serial: randomBytes(16), notBefore: new Date(now - 60_000), notAfter: new Date(now + TEN_YEARS_MS) });
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certificate: cert.toString('base64') };
}

/** A base64 DER certificate in PEM armour. */
export function certificatePem(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${(base64.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
}
