import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** A SAML party's RSA key (PKCS#8 PEM) and self-signed certificate (base64 DER). */
export interface PartyKeys {
  privateKey: string;
  certificate: string;
}

/** Makes a key pair and a self-signed certificate named `CN=<name>`, valid for `days`. */
export async function selfSignedKeys(name: string, days: number): Promise<PartyKeys> {
  const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    { name: `CN=${name}`, keys, notBefore: new Date(Date.now() - 3600_000), notAfter: new Date(Date.now() + days * 86400_000), signingAlgorithm: alg },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return { privateKey: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`, certificate: Buffer.from(cert.rawData).toString('base64') };
}

/**
 * The parameters of an HTTP-Redirect binding message: decoded (as samlify reads them), and the
 * octet string its signature covers, as it was sent (still URL-encoded).
 */
export function redirectQuery(url: string): { query: Record<string, string>; octetString: string } {
  const raw = url.split('?')[1] ?? '';
  const encoded = Object.fromEntries(raw.split('&').map((p) => p.split('=') as [string, string]));
  const octetString = ['SAMLRequest', 'SAMLResponse', 'RelayState', 'SigAlg']
    .filter((k) => encoded[k] !== undefined)
    .map((k) => `${k}=${encoded[k]}`)
    .join('&');
  return { query: Object.fromEntries(Object.entries(encoded).map(([k, v]) => [k, decodeURIComponent((v ?? '').replace(/\+/g, ' '))])), octetString };
}
