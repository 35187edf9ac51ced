import request from 'supertest';
import { hashId, type BearerTokens } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { startImageServer, type ImageServer } from '../support/image-server';
import { callback, startLogin } from '../support/oauth-flow';
import { followToApp, startOidcPeer, type OidcPeer } from '../support/oidc-peer';

const APP = 'http://127.0.0.1:8080';

describe('OAuth2 login against oidc-provider (an independent authorization server)', () => {
  let peer: OidcPeer;
  let made: TestApp;
  let stub: ImageServer;
  const bearer: Array<{ provider: string; user: string; tokens: BearerTokens }> = [];

  beforeAll(async () => {
    stub = await startImageServer({ '/me': { body: '{"error":"invalid_token"}', status: 401, type: 'application/json' } });
    peer = await startOidcPeer([`${APP}/auth/oidc/callback`, `${APP}/auth/noinfo/callback`]);
    const client = { cid: peer.clientId, csecret: peer.clientSecret };
    const endpoints = { authUrl: `${peer.issuer}/auth`, tokenUrl: `${peer.issuer}/token`, scopes: ['openid', 'profile', 'email'] };
    made = makeApp({}, (auth) => {
      auth.addCustomProvider('oidc', client, {
        ...endpoints,
        infoUrl: `${peer.issuer}/me`,
        mapUser: (info) => {
          const i = info as { sub: string; name: string; email: string };
          return { id: hashId('oidc', i.sub), name: i.name, picture: '', email: i.email };
        },
        userAttributes: { mail: 'email' },
        onBearerToken: (provider, user, tokens) => {
          bearer.push({ provider, user: user.name, tokens });
        },
      });
      auth.addCustomProvider('noinfo', client, { ...endpoints, infoUrl: `${stub.url}/me`, mapUser: () => ({ id: 'x', name: 'x', picture: '' }) });
    });
  }, 30_000);
  afterAll(async () => {
    await peer?.stop();
    await stub?.close();
  });

  it('logs in: redirect, state, PKCE, code exchange, user info in the Authorization header, cookies, /auth/user', async () => {
    const { location, handshake } = await startLogin(made.app, 'oidc', '?from=/home');
    expect(location.origin).toBe(peer.issuer);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('state')).toBe((decodeJwt(handshake).payload.handshake as { state: string }).state);
    const cb = await followToApp(location, APP);
    expect(cb.pathname).toBe('/auth/oidc/callback');
    const res = await callback(made.app, cb, handshake).expect(303);
    expect(res.headers.location).toBe('/home');
    const cookies = setCookies(res);
    const me = await request(made.app).get('/auth/user').set('Cookie', `JWT=${cookies.JWT!.value}`).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(200);
    expect(me.body).toMatchObject({ name: 'Alice Liddell', id: hashId('oidc', 'alice'), email: 'alice@example.com', attrs: { mail: 'alice@example.com' } });
    expect(bearer.at(-1)).toMatchObject({ provider: 'oidc', user: 'Alice Liddell' });
    expect(bearer.at(-1)?.tokens.accessToken).toBeTruthy();
  });

  it('refuses a replayed callback (the code is one-shot at the server)', async () => {
    const { location, handshake } = await startLogin(made.app, 'oidc');
    const cb = await followToApp(location, APP);
    await callback(made.app, cb, handshake).expect(200);
    const replay = await callback(made.app, cb, handshake).expect(403);
    expect(replay.body.error).toMatch(/refused|already completed/);
  });

  it('refuses a state mismatch with 403', async () => {
    const a = await startLogin(made.app, 'oidc');
    const b = await startLogin(made.app, 'oidc');
    const cb = await followToApp(a.location, APP);
    await callback(made.app, cb, b.handshake).expect(403);
  });

  it('answers 503 and sets no session cookie when the user-info call answers 401', async () => {
    const { location, handshake } = await startLogin(made.app, 'noinfo');
    const cb = await followToApp(location, APP);
    const res = await callback(made.app, cb, handshake).expect(503);
    expect(res.body.error).toMatch(/user info/);
    expect(setCookies(res).JWT).toBeUndefined();
  });

  it.each([
    ['the own host', `${APP}/x`, 303],
    ['a relative path', '/dashboard?tab=1', 303],
    ['another host', 'https://evil.example/', 200],
    ['a protocol-relative URL', '//evil.example', 200],
    ['javascript:', 'javascript:alert(1)', 200],
    ['credentials before the own host', 'https://evil@127.0.0.1:8080/', 200],
  ])('follows from to %s only when allowed', async (_what, from, status) => {
    const { location, handshake } = await startLogin(made.app, 'oidc', `?from=${encodeURIComponent(from)}`);
    const res = await callback(made.app, await followToApp(location, APP), handshake).expect(status);
    if (status === 303) expect(res.headers.location).toBe(from);
    else expect(res.body.name).toBe('Alice Liddell');
  });
});
