import { createHmac } from 'node:crypto';
import { Hs256Key, hasHs256Signature, signHs256 } from '../../src/core/token/hs256';

describe('HS256 keys', () => {
  const secrets = ['s', 'k'.repeat(64), 'l'.repeat(65), 'ключ-секрет-🔑'.repeat(6), 'bench-secret-0123456789abcdef0123456789'];
  const texts = ['', 'a', 'héllo ✓ 🔑', 'z'.repeat(30_000), 'q'.repeat(100)];

  it.each(secrets)('signs as HMAC-SHA-256 does, for any text (secret of %#)', (secret) => {
    const key = new Hs256Key(secret);
    for (const text of texts) expect(key.sign(text)).toBe(createHmac('sha256', secret).update(text).digest('base64url'));
    // After the long text the key still signs short ones right.
    expect(key.sign('after')).toBe(createHmac('sha256', secret).update('after').digest('base64url'));
  });

  it('checks a signature only in its canonical form and only for the whole token', () => {
    const key = new Hs256Key('secret-0123456789');
    const token = signHs256({ user: { name: 'Zoë' } }, key);
    const lastDot = token.lastIndexOf('.');
    expect(hasHs256Signature(token, lastDot, key)).toBe(true);
    expect(hasHs256Signature(`${token}A`, lastDot, key)).toBe(false);
    expect(hasHs256Signature(token.slice(0, -1), lastDot, key)).toBe(false);
    expect(hasHs256Signature(token, lastDot, new Hs256Key('secret-0123456789x'))).toBe(false);
  });
});
