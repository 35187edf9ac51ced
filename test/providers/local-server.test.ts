import request from 'supertest';
import { createLocalOAuthServer, type LocalOAuthServer } from '../../src/local-server';
import { hashId } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { callback, startLogin } from '../support/oauth-flow';

const APP = 'http://127.0.0.1:8080';

/** Fills the local server's login page like a browser: hidden fields + user name + password. */
async function submitLogin(location: URL, username: string, password: string): Promise<Response> {
  const html = await (await fetch(location)).text();
  const form = new URLSearchParams({ username, password });
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(
      m[1]!,
      m[2]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))),
    );
  }
  return fetch(new URL(`/authorize?${new URLSearchParams(Object.fromEntries(form)).toString()}`, location), { method: 'POST', body: form, redirect: 'manual' });
}

describe('local OAuth2 server (@node-oauth/oauth2-server) as a custom provider', () => {
  let server: LocalOAuthServer;
  let made: TestApp;
  beforeAll(async () => {
    server = createLocalOAuthServer({
      url: 'http://127.0.0.1:0',
      clients: [{ id: 'app', secret: 'app-secret-0123456789', redirectUris: [`${APP}/auth/corp/callback`] }],
      checkCredentials: (u, p) => u === 'carol' && p === 'carol-pass',
    });
    await server.start();
    made = makeApp({}, (auth) => auth.addCustomProvider('corp', { cid: 'app', csecret: 'app-secret-0123456789' }, server.providerConfig('corp')));
  });
  afterAll(() => server.stop());

  it('logs in through its login page with code, PKCE, token and user info', async () => {
    const { location, handshake } = await startLogin(made.app, 'corp', '?from=/in');
    expect(location.origin).toBe(server.url);
    const page = await fetch(location);
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${APP}`);
    const res = await submitLogin(location, 'carol', 'carol-pass');
    expect(res.status).toBe(302);
    const cb = new URL(res.headers.get('location')!);
    expect(cb.searchParams.get('state')).toBe(location.searchParams.get('state'));
    const done = await callback(made.app, cb, handshake).expect(303);
    expect(done.headers.location).toBe('/in');
    const cookies = setCookies(done);
    const me = await request(made.app).get('/auth/user').set('Cookie', `JWT=${cookies.JWT!.value}`).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(200);
    expect(me.body).toMatchObject({ id: hashId('corp', 'carol'), name: 'carol' });
  });

  it('refuses a wrong password, an unknown client and a replayed code', async () => {
    const { location, handshake } = await startLogin(made.app, 'corp');
    expect((await submitLogin(location, 'carol', 'nope')).status).toBe(403);
    const bad = new URL(location);
    bad.searchParams.set('client_id', 'other');
    expect((await fetch(bad)).status).toBe(400);
    const ok = await submitLogin(location, 'carol', 'carol-pass');
    const cb = new URL(ok.headers.get('location')!);
    await callback(made.app, cb, handshake).expect(200);
    await callback(made.app, cb, handshake).expect(403);
  });

  it('answers 401 to user info without a valid token', async () => {
    expect((await fetch(`${server.url}/user`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('limits the login form like direct login: 10 failures per user name a minute, then 429 with Retry-After, whatever the case; the right password still passes', async () => {
    const limited = createLocalOAuthServer({
      url: 'http://127.0.0.1:0',
      clients: [{ id: 'app', secret: 'app-secret-0123456789', redirectUris: [`${APP}/auth/corp/callback`] }],
      checkCredentials: (u, p) => u === 'carol' && p === 'carol-pass',
    });
    await limited.start();
    try {
      const app = makeApp({}, (auth) => auth.addCustomProvider('corp', { cid: 'app', csecret: 'app-secret-0123456789' }, limited.providerConfig('corp'))).app;
      const { location } = await startLogin(app, 'corp');
      for (let i = 0; i < 10; i++) expect((await submitLogin(location, i % 2 ? 'carol' : 'CAROL', `guess-${i}`)).status).toBe(403);
      const blocked = await submitLogin(location, 'carol', 'guess-10');
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await blocked.json()).toMatchObject({ error: 'slow_down' });
      expect((await submitLogin(location, 'carol', 'carol-pass')).status).toBe(302);
    } finally {
      await limited.stop();
    }
  });
});
