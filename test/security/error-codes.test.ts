import request from 'supertest';
import { setClock } from '../support/clock';
import { login, makeApp } from '../support/auth-app';

describe('error answers name their reason in a stable code', () => {
  afterEach(() => jest.useRealTimers());

  it('tells a missing token, a missing or foreign XSRF header, a forged token, an expired one and a revoked session apart', async () => {
    const { app, auth } = makeApp({ revocationCheck: 'every-request' });
    const { jwt, xsrf, cookie } = await login(app, 'alice');
    const code = async (r: request.Test, status: number): Promise<unknown> => (await r.expect(status)).body.code;
    expect(await code(request(app).get('/private'), 401)).toBe('token_missing');
    expect(await code(request(app).get('/private').set('Cookie', cookie), 401)).toBe('xsrf_missing');
    expect(await code(request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'another-sessions-value'), 401)).toBe('xsrf_mismatch');
    expect(
      await code(
        request(app)
          .get('/private')
          .set('X-JWT', `${jwt.slice(0, -2)}AA`),
        401,
      ),
    ).toBe('token_invalid');
    expect(await code(request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'wrong' }), 403)).toBe('credentials_rejected');
    expect(await code(request(app).post('/auth/logout').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site'), 403)).toBe('cross_site');
    expect(await code(request(app).get('/admin').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf), 403)).toBe('forbidden');
    setClock(Math.floor(Date.now() / 1000) + 3600);
    expect(await code(request(app).get('/private').set('X-JWT', jwt), 401)).toBe('token_expired');
    jest.useRealTimers();
    await request(app).post('/auth/logout').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200);
    expect(await code(request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf), 401)).toBe('session_revoked');
    expect(await code(request(app).get('/auth/nope/login'), 404)).toBe('not_found');
    expect(await code(request(app).put('/auth/local/login'), 405)).toBe('method_not_allowed');
    expect(await code(request(app).post('/auth/local/login').set('Content-Type', 'application/json').send('{"user":'), 400)).toBe('bad_request');
    await auth.close();
  });
});
