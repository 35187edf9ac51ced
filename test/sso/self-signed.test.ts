import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { selfSignedCertificate } from '../../src/plugins/sso/self-signed';
import { makeSpKeys } from '../../src/plugins/sso/sp-keys';

describe("a connection's certificate, made with node:crypto alone", () => {
  it('parses as X.509 v3 with the name, validity and key given, and verifies with its own key', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const notBefore = new Date('2026-11-29T10:00:00Z');
    const der = selfSignedCertificate({ commonName: 'authgate SSO conn_ä', privateKey, serial: Buffer.from([0x80, 1, 2]), notBefore, notAfter: new Date('2060-01-01T00:00:00Z') });
    const cert = new X509Certificate(der);
    expect([cert.subject, cert.issuer]).toEqual(['CN=authgate SSO conn_ä', 'CN=authgate SSO conn_ä']);
    // UTCTime before 2050, GeneralizedTime after (RFC 5280).
    expect([new Date(cert.validFrom).toISOString(), new Date(cert.validTo).toISOString()]).toEqual(['2026-11-29T10:00:00.000Z', '2060-01-01T00:00:00.000Z']);
    // A serial with its high bit set stays positive (a leading zero).
    expect(cert.serialNumber).toBe('800102');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(privateKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyType).toBe('rsa');
  });

  it('makeSpKeys gives a PKCS#8 key and the base64 DER certificate of it, fresh each time', async () => {
    const [a, b] = await Promise.all([makeSpKeys('conn_a'), makeSpKeys('conn_b')]);
    expect(a.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const cert = new X509Certificate(Buffer.from(a.certificate, 'base64'));
    expect(cert.subject).toBe('CN=authgate SSO conn_a');
    expect(cert.checkPrivateKey(createPrivateKey(a.privateKey))).toBe(true);
    expect(a.certificate).not.toBe(b.certificate);
    expect(cert.serialNumber).not.toBe(new X509Certificate(Buffer.from(b.certificate, 'base64')).serialNumber);
  });
});
