import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { hashId, loadApplePrivateKeyFromFile } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { startApplePeer, type ApplePeer, type CodeGrant } from '../support/apple-peer';

describe('Sign in with Apple against token and JWKS stand-ins', () => {
  let peer: ApplePeer;
  let made: TestApp;
  let dir: string;

  beforeAll(async () => {
    peer = await startApplePeer();
    dir = await mkdtemp(join(tmpdir(), 'authgate-apple-'));
    await writeFile(join(dir, 'AuthKey.p8'), peer.privateKeyPem);
    made = makeApp({}, (auth) =>
      auth.addAppleProvider(
        {
          clientId: peer.clientId,
          teamId: peer.teamId,
          keyId: peer.keyId,
          authUrl: `${peer.url}/auth/authorize`,
          tokenUrl: `${peer.url}/auth/token`,
          jwksUrl: `${peer.url}/auth/keys`,
          jwksRefetchCooldown: 0,
        },
        loadApplePrivateKeyFromFile(join(dir, 'AuthKey.p8')),
      ),
    );
  });
  afterAll(async () => {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Starts a login and posts Apple's form_post callback for a code granting `grant`. */
  async function appleLogin(grant: Omit<CodeGrant, 'nonce'> & { nonce?: string | null }, user?: string, query = '') {
    const start = await request(made.app).get(`/auth/apple/login${query}`).expect(302);
    const location = new URL(start.headers.location as string);
    const handshake = setCookies(start).JWT!;
    const nonce = grant.nonce === null ? undefined : (grant.nonce ?? location.searchParams.get('nonce') ?? undefined);
    const code = peer.issueCode({ ...grant, nonce });
    const form: Record<string, string> = { code, state: location.searchParams.get('state') ?? '' };
    if (user) form.user = user;
    const res = await request(made.app).post('/auth/apple/callback').set('Cookie', `JWT=${handshake.value}`).type('form').send(form);
    return { start, location, handshake, res, form };
  }

  it('logs in: form_post callback, state, ES256 client secret, id_token checked, first-login name', async () => {
    const { location, handshake, res } = await appleLogin(
      { sub: '001234.abcdef', email: 'ann@privaterelay.appleid.com' },
      JSON.stringify({ name: { firstName: 'Ann', lastName: 'Apple' } }),
      '?from=/home',
    );
    expect(location.searchParams.get('response_mode')).toBe('form_post');
    expect(location.searchParams.get('client_id')).toBe(peer.clientId);
    expect(location.searchParams.get('redirect_uri')).toBe('http://127.0.0.1:8080/auth/apple/callback');
    expect(location.searchParams.get('scope')).toBe('name email');
    // The handshake must survive Apple's cross-site POST; the session cookie keeps Lax.
    expect(handshake.attrs.samesite).toBe('None');
    expect(handshake.attrs.secure).toBe(true);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/home');
    const session = setCookies(res).JWT!;
    expect(session.attrs.samesite).toBe('Lax');
    const user = decodeJwt(session.value).payload.user as Record<string, string>;
    expect(user).toMatchObject({ name: 'Ann Apple', id: hashId('apple', '001234.abcdef'), email: 'ann@privaterelay.appleid.com' });
    expect(peer.tokenRequests.at(-1)).toMatchObject({ client_id: peer.clientId, grant_type: 'authorization_code' });
  });

  it('gives a stable fallback name on later logins without the user field', async () => {
    const a = await appleLogin({ sub: '009999.zzz' });
    const b = await appleLogin({ sub: '009999.zzz' });
    expect(a.res.status).toBe(200);
    expect(a.res.body.name).toMatch(/^noname_[0-9a-f]{8}$/);
    expect(b.res.body.name).toBe(a.res.body.name);
  });

  it.each([
    ['a wrong aud', { sub: 's', aud: 'com.other.app' }, /not valid/],
    ['a wrong iss', { sub: 's', iss: 'https://evil.example' }, /not valid/],
    ['a bad signature', { sub: 's', forgeSignature: true }, /not valid/],
    ['a wrong nonce', { sub: 's', nonce: 'someone-elses-nonce' }, /nonce/],
    ['no nonce although one was sent (item 11)', { sub: 's', nonce: null }, /nonce/],
  ] as const)('refuses an id_token with %s (403, no session)', async (_what, grant, message) => {
    const { res } = await appleLogin(grant as CodeGrant);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(message);
    expect(setCookies(res).JWT).toBeUndefined();
  });

  it('refetches the JWKS once for an unknown kid', async () => {
    await appleLogin({ sub: 'warm' });
    const before = peer.jwksFetches;
    const { res } = await appleLogin({ sub: 'rotated', rotateKey: true });
    expect(res.status).toBe(200);
    expect(peer.jwksFetches).toBe(before + 1);
    await appleLogin({ sub: 'again' });
    expect(peer.jwksFetches).toBe(before + 1);
  });

  it('refuses a state mismatch, a replayed code, a missing code and an error from Apple', async () => {
    const start = await request(made.app).get('/auth/apple/login').expect(302);
    const cookie = `JWT=${setCookies(start).JWT!.value}`;
    await request(made.app)
      .post('/auth/apple/callback')
      .set('Cookie', cookie)
      .type('form')
      .send({ code: peer.issueCode({ sub: 'x' }), state: 'wrong' })
      .expect(403);
    await request(made.app).post('/auth/apple/callback').type('form').send({ code: 'c', state: 's' }).expect(403);
    const state = new URL(start.headers.location as string).searchParams.get('state')!;
    await request(made.app).post('/auth/apple/callback').set('Cookie', cookie).type('form').send({ state }).expect(400);
    const denied = await request(made.app).post('/auth/apple/callback').set('Cookie', cookie).type('form').send({ error: 'user_cancelled_authorize', state });
    expect(denied.status).toBe(403);
    const { res, handshake, form } = await appleLogin({ sub: 'once' });
    expect(res.status).toBe(200);
    const replay = await request(made.app).post('/auth/apple/callback').set('Cookie', `JWT=${handshake.value}`).type('form').send(form);
    expect(replay.status).toBe(403);
    expect(setCookies(replay).JWT).toBeUndefined();
  });

  it('throws at registration for a missing or wrong key and missing ids', () => {
    const ids = { clientId: 'c', teamId: 't', keyId: 'k' };
    expect(() => makeApp({}, (auth) => auth.addAppleProvider(ids, loadApplePrivateKeyFromFile('/nonexistent/AuthKey.p8')))).toThrow(/cannot load the Apple private key/);
    expect(() => makeApp({}, (auth) => auth.addAppleProvider(ids, () => 'not a key'))).toThrow(/not a PEM private key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(() => makeApp({}, (auth) => auth.addAppleProvider(ids, () => rsa))).toThrow(/EC P-256/);
    expect(() => makeApp({}, (auth) => auth.addAppleProvider({ ...ids, teamId: '' }, () => peer.privateKeyPem))).toThrow(/teamId/);
  });
});
