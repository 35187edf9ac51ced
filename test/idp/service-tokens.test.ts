import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createAuth } from '../../src';
import { SECRET } from '../support/auth-app';
import { startIdpApp, type IdpApp } from './idp-helpers';

describe('service tokens: auth.tokens.forService(), verified by another service from the JWKS alone', () => {
  let idp: IdpApp;
  beforeAll(async () => {
    idp = await startIdpApp({ clients: [], signingAlg: 'EdDSA' });
  });
  afterAll(() => idp?.close());

  it('is an at+jwt for one audience with the scopes and a short life, signed with the published key; another audience or a changed token is refused', async () => {
    const user = { id: 'local_0123456789abcdef0123456789abcdef01234567', name: 'alice', picture: '' };
    const token = await idp.auth.tokens.forService(user, { audience: 'https://billing.internal', scopes: ['invoices:read'], ttl: 60_000 });
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
    const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    const { payload } = await jwtVerify(token, jwks, { issuer: idp.issuer, audience: 'https://billing.internal', typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: user.id, scope: 'invoices:read', name: 'alice' });
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);
    await expect(jwtVerify(token, jwks, { issuer: idp.issuer, audience: 'https://other.internal' })).rejects.toThrow();
    const [h, p, s] = token.split('.') as [string, string, string];
    const changed = `${h}.${Buffer.from(JSON.stringify({ ...payload, scope: 'invoices:write' })).toString('base64url')}.${s}`;
    expect(p).not.toBe(changed.split('.')[1]);
    await expect(jwtVerify(changed, jwks, { issuer: idp.issuer, audience: 'https://billing.internal' })).rejects.toThrow();
  });

  it('refuses bad options with a clear error, and says what is missing without the identity provider', async () => {
    const user = { id: 'local_x', name: 'x', picture: '' };
    await expect(idp.auth.tokens.forService(user, { audience: '' })).rejects.toThrow(/audience is required/);
    await expect(idp.auth.tokens.forService(user, { audience: 'a', ttl: 7_200_000 })).rejects.toThrow(/ttl/);
    await expect(idp.auth.tokens.forService(user, { audience: 'a', scopes: ['a b'] })).rejects.toThrow(/scopes/);
    const plain = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    await expect(plain.tokens.forService(user, { audience: 'a' })).rejects.toThrow(/needs the identity provider/);
    await plain.close();
  });
});
