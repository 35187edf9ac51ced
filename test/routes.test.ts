import request from 'supertest';
import { AuthError, createAuth, type Provider } from '../src';
import { SECRET, login, makeApp } from './support/auth-app';
import { setCookies } from './support/cookies';

const CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

describe('auth routes', () => {
  it('lists providers in registration order', async () => {
    const { app } = makeApp({}, (auth) => auth.addDirectProvider('second', () => true));
    const res = await request(app).get('/auth/list').expect(200);
    expect(res.body).toEqual(['local', 'second']);
  });

  it('/user answers 401 when not logged in and the user with aud when logged in', async () => {
    const { app } = makeApp();
    const anon = await request(app).get('/auth/user').expect(401);
    expect(anon.body).toEqual({ error: 'token not found', code: 'token_missing' });
    const a = await login(app);
    const res = await request(app).get('/auth/user').set('Cookie', a.cookie).set('X-XSRF-TOKEN', a.xsrf).expect(200);
    expect(res.body).toMatchObject({ name: 'alice', aud: 'authgate' });
  });

  it('/status says whether the caller is logged in', async () => {
    const { app } = makeApp();
    expect((await request(app).get('/auth/status').expect(200)).body).toEqual({ status: 'not logged in' });
    const a = await login(app);
    const res = await request(app).get('/auth/status').set('Cookie', a.cookie).set('X-XSRF-TOKEN', a.xsrf).expect(200);
    expect(res.body).toEqual({ status: 'logged in', user: 'alice' });
  });

  it('/logout and /<p>/logout clear both cookies, with or without a valid token', async () => {
    const { app } = makeApp();
    for (const path of ['/auth/logout', '/auth/local/logout']) {
      const res = await request(app).get(path).set('Cookie', 'JWT=garbage').expect(200);
      const cookies = setCookies(res);
      for (const name of ['JWT', 'XSRF-TOKEN']) {
        expect(cookies[name]?.value).toBe('');
        expect(cookies[name]?.attrs['max-age']).toBe('0');
        expect(cookies[name]?.attrs.expires).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
      }
    }
  });

  it('answers 404 JSON for unknown providers, actions and paths', async () => {
    const { app } = makeApp();
    expect((await request(app).get('/auth/github/login').expect(404)).body).toEqual({ error: 'provider github not supported', code: 'not_found' });
    expect((await request(app).get('/auth/local/whatever').expect(404)).body.error).toMatch(/unknown action/);
    expect((await request(app).get('/auth/local/callback').expect(404)).body.error).toMatch(/no callback/);
    expect((await request(app).get('/auth/a/b/c').expect(404)).body).toEqual({ error: 'provider a not supported', code: 'not_found' });
    expect((await request(app).get('/auth/local/login/extra').expect(404)).body.error).toMatch(/unknown action/);
    expect((await request(app).get('/auth/a/b/c/d').expect(404)).body).toEqual({ error: 'not found', code: 'not_found' });
  });

  it('sets nosniff and the strict CSP on every auth and avatar answer', async () => {
    const { app } = makeApp();
    for (const path of ['/auth/list', '/auth/user', '/auth/nope/login', '/auth/local/login', '/avatar/x', `/avatar/${'a'.repeat(40)}.image`]) {
      const res = await request(app).get(path);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe(CSP);
    }
  });

  it('validates provider names at registration', () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    auth.addDirectProvider('ok-name_1.2', () => true);
    for (const bad of ['', 'a/b', 'a?b', 'a#b', 'a b', 'a:b', 'a@b', "a'b", 'a%2f', '..', 'x'.repeat(65)]) {
      expect(() => auth.addDirectProvider(bad, () => true)).toThrow(/provider name/);
    }
    expect(() => auth.addDirectProvider('ok-name_1.2', () => true)).toThrow(/already registered/);
    expect(() => auth.addCustomHandler({} as Provider)).toThrow(/login/);
  });

  it('runs custom providers and turns their AuthErrors into JSON', async () => {
    const { app } = makeApp({}, (auth) =>
      auth.addCustomHandler({
        name: 'custom',
        async login(req, res, kit) {
          if (req.query.get('who') === null) throw new AuthError('bad_request', 'who is required');
          await kit.completeLogin(req, res, { provider: 'custom', user: { name: 'c', id: 'custom_1', picture: '' } });
        },
      }),
    );
    expect((await request(app).get('/auth/custom/login').expect(400)).body).toEqual({ error: 'who is required', code: 'bad_request' });
    const res = await request(app).get('/auth/custom/login?who=me').expect(200);
    expect(res.body.id).toBe('custom_1');
  });
});

describe('methods declared by providers', () => {
  it('answers 405 with Allow for a method a provider does not declare, and the default GET/POST for one that declares none', async () => {
    const { app } = makeApp({}, (auth) =>
      auth.addCustomHandler({
        name: 'plain',
        async login(_req, res) {
          res.end('in');
        },
      }),
    );
    const put = await request(app).put('/auth/local/login').send({ user: 'a', passwd: 'pw' }).expect(405);
    expect(put.headers.allow).toBe('GET, POST');
    expect(put.body).toEqual({ error: 'use GET or POST', code: 'method_not_allowed' });
    await request(app).delete('/auth/plain/login').expect(405);
    await request(app).post('/auth/plain/login').expect(200);
    await request(app).delete('/auth/plain/logout').expect(200);
  });
});

describe('error codes decide statuses', () => {
  it('maps every code to one status', () => {
    const statuses = Object.fromEntries(
      (
        [
          'config',
          'unauthorized',
          'forbidden',
          'bad_request',
          'not_found',
          'method_not_allowed',
          'payload_too_large',
          'unsupported_media_type',
          'rate_limited',
          'bad_gateway',
          'unavailable',
          'internal',
        ] as const
      ).map((c) => [c, new AuthError(c, 'x').status]),
    );
    expect(statuses).toEqual({
      config: 500,
      unauthorized: 401,
      forbidden: 403,
      bad_request: 400,
      not_found: 404,
      method_not_allowed: 405,
      payload_too_large: 413,
      unsupported_media_type: 415,
      rate_limited: 429,
      bad_gateway: 502,
      unavailable: 503,
      internal: 500,
    });
  });
});
