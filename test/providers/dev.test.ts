import request from 'supertest';
import { hashId, type DevServer } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';

describe('dev provider (OAuth2 against the dev server)', () => {
  let made: TestApp;
  let dev: DevServer;
  beforeAll(async () => {
    made = makeApp({}, (auth) => {
      dev = auth.addDevProvider({ port: 0, getEmail: (u) => `${u}@dev.example` });
    });
    await dev.start();
  });
  afterAll(() => dev.stop());

  it('redirects to the provider with state, PKCE S256 and the callback URL, in a handshake cookie', async () => {
    const { location, handshake } = await startLogin(made.app, 'dev', '?from=/after&session=1&aud=authgate');
    expect(location.origin).toBe(dev.url);
    expect(location.pathname).toBe('/login/oauth/authorize');
    expect(location.searchParams.get('redirect_uri')).toBe('http://127.0.0.1:8080/auth/dev/callback');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('response_type')).toBe('code');
    const { payload } = decodeJwt(handshake);
    expect((payload.handshake as Record<string, string>).state).toBe(location.searchParams.get('state'));
    expect((payload.handshake as Record<string, string>).from).toBe('/after');
    expect(payload.sess_only).toBe(true);
    expect(payload.user).toBeUndefined();
    expect((payload.exp as number) - (payload.iat as number)).toBe(1800);
  });

  it('logs in end to end: login page, code, exchange, user info, session cookies, redirect to from', async () => {
    const { location, handshake } = await startLogin(made.app, 'dev', '?from=/after');
    const cb = await devAuthorize(location, 'dave');
    const res = await callback(made.app, cb, handshake).expect(303);
    expect(res.headers.location).toBe('/after');
    const cookies = setCookies(res);
    const { payload } = decodeJwt(cookies.JWT!.value);
    const user = payload.user as Record<string, string>;
    expect(user.id).toBe(hashId('dev', 'dave'));
    expect(user.name).toBe('dave');
    expect(user.email).toBe('dave@dev.example');
    expect(user.picture).toMatch(/^http:\/\/127\.0\.0\.1:8080\/avatar\/[0-9a-f]{40}\.image$/);
    expect(payload.auth_provider).toEqual({ name: 'dev' });
    expect(payload.handshake).toBeUndefined();
    const me = await request(made.app).get('/auth/user').set('Cookie', `JWT=${cookies.JWT!.value}`).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(200);
    expect(me.body.name).toBe('dave');
  });

  it('a callback without a login in progress: an HTML page with a link that starts again for a browser, JSON for an API client', async () => {
    const page = await request(made.app).get('/auth/dev/callback?code=x&state=y').set('Accept', 'text/html,application/xhtml+xml').expect(403);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<a href="/auth/dev/login">Start the login again</a>');
    expect(page.text).toContain('no login in progress');
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    const api = await request(made.app).get('/auth/dev/callback?code=x&state=y').expect(403);
    expect(api.body).toEqual({ error: 'no login in progress: start the login again', code: 'forbidden' });
  });

  it('answers 200 user JSON without from', async () => {
    const { location, handshake } = await startLogin(made.app, 'dev');
    const res = await callback(made.app, await devAuthorize(location, 'erin'), handshake).expect(200);
    expect(res.body.name).toBe('erin');
  });

  it('refuses a state mismatch, a missing handshake, and a replayed callback with 403 and no session', async () => {
    const first = await startLogin(made.app, 'dev');
    const cb = await devAuthorize(first.location, 'frank');
    const other = await startLogin(made.app, 'dev');
    const mismatch = await callback(made.app, cb, other.handshake).expect(403);
    expect(mismatch.body.error).toMatch(/state/);
    expect(setCookies(mismatch).JWT).toBeUndefined();
    await request(made.app).get(`${cb.pathname}${cb.search}`).expect(403);
    await callback(made.app, cb, first.handshake).expect(200);
    const replay = await callback(made.app, cb, first.handshake).expect(403);
    expect(replay.body.error).toMatch(/refused|already completed/);
    expect(setCookies(replay).JWT).toBeUndefined();
  });

  it("answers the provider's access_denied with 403 JSON", async () => {
    const { location, handshake } = await startLogin(made.app, 'dev');
    const state = location.searchParams.get('state');
    const res = await request(made.app).get(`/auth/dev/callback?error=access_denied&error_description=user+said+no&state=${state}`).set('Cookie', `JWT=${handshake}`).expect(403);
    expect(res.body.error).toBe('login refused: user said no');
  });

  it('refuses a login with an aud outside audiences before redirecting', async () => {
    let devB: DevServer | undefined;
    const b = makeApp({ audiences: ['x'] }, (auth) => {
      devB = auth.addDevProvider({ port: 0 });
    });
    await devB!.start();
    try {
      await request(b.app).get('/auth/dev/login?aud=y').expect(403);
      await request(b.app).get('/auth/dev/login?aud=x').expect(302);
    } finally {
      await devB!.stop();
    }
  });

  it('answers 503 when the dev server is not started', async () => {
    const c = makeApp({}, (auth) => auth.addDevProvider({ port: 0 }));
    const res = await request(c.app).get('/auth/dev/login').expect(503);
    expect(res.body.error).toMatch(/dev\.start/);
  });
});

describe("addProvider('dev', '', '')", () => {
  it('registers the dev provider with its defaults', () => {
    const { auth } = makeApp({}, (a) => a.addProvider('dev', '', ''));
    expect(auth.providerNames()).toEqual(['local', 'dev']);
  });
});
