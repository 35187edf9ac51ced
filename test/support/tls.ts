import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { selfSignedCertificate } from '../../src/plugins/sso/self-signed';

/** A key and a self-signed certificate for `commonName`, as PEM: a server of its own over https in a test (the browser is told to accept it). */
export function testCertificate(commonName: string): { key: string; cert: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const der = selfSignedCertificate({ commonName, privateKey, serial: randomBytes(8), notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) });
  const body = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: `-----BEGIN CERTIFICATE-----\n${body}-----END CERTIFICATE-----\n` };
}
