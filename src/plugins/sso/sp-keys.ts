import { webcrypto } from 'node:crypto';
import { loadOptional } from '../../plugin-kit/helpers';

type X509 = typeof import('@peculiar/x509');

/** A service provider's key pair for one connection: it signs AuthnRequests and decrypts assertions. */
export interface SpKeys {
  /** PKCS#8 PEM. */
  privateKey: string;
  /** The self-signed certificate, base64 DER (as metadata carries it). */
  certificate: string;
}

const ALGORITHM = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
const TEN_YEARS_MS = 10 * 365 * 24 * 3600_000;

/**
 * Makes a connection's key pair and a self-signed certificate of it: SAML peers trust the
 * certificate pinned in metadata, not a chain, so a fresh one per connection isolates customers
 * (one customer's IT never holds a key that works for another's connection).
 */
export async function makeSpKeys(connectionId: string): Promise<SpKeys> {
  // @peculiar/x509 needs the Reflect metadata polyfill loaded first (as @simplewebauthn/server does).
  loadOptional<unknown>('reflect-metadata', 'SAML connections (sso)');
  const x509 = loadOptional<X509>('@peculiar/x509', 'SAML connections (sso)');
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    { name: `CN=authgate SSO ${connectionId}`, keys, notBefore: new Date(now - 60_000), notAfter: new Date(now + TEN_YEARS_MS), signingAlgorithm: ALGORITHM },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return {
    privateKey: `-----BEGIN PRIVATE KEY-----\n${(pkcs8.match(/.{1,64}/g) ?? []).join('\n')}\n-----END PRIVATE KEY-----\n`,
    certificate: Buffer.from(cert.rawData).toString('base64'),
  };
}

/** A base64 DER certificate in PEM armour. */
export function certificatePem(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${(base64.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
}
