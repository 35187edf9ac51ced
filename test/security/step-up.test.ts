import request from 'supertest';
import { hashId, type AuthOptions } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { setClock } from '../support/clock';
import { CookieJar } from '../support/cookie-jar';

const URL_ = 'http://localhost:8080';
const KEY = 'two-factor-key-0123456789abcdef-0123';

/** The credential changes a stolen session must not make, each as its first request. */
const CHANGES: Array<[string, (t: TestApp) => request.Test]> = [
  ['add a passkey', (t) => request(t.app).post('/auth/passkey/register').send({})],
  ['rename a passkey', (t) => request(t.app).patch('/auth/passkey/credentials/some-id').send({ label: 'x' })],
  ['delete a passkey', (t) => request(t.app).delete('/auth/passkey/credentials/some-id')],
  ['enrol two-factor', (t) => request(t.app).post('/auth/2fa/enroll').send({})],
  ['confirm two-factor', (t) => request(t.app).post('/auth/2fa/confirm').send({ code: '123456' })],
  ['disable two-factor', (t) => request(t.app).post('/auth/2fa/disable').send({ code: '123456' })],
  ['link another login', (t) => request(t.app).post('/auth/local/link').send({})],
];

describe('step-up: credential changes need a fresh login in the session cookie', () => {
  const opened: TestApp[] = [];
  const app = (extra: Partial<AuthOptions> = {}): TestApp => {
    const t = makeApp({ url: URL_, twoFactor: { key: KEY }, ...extra }, (auth) => {
      auth.addPasskeyProvider('passkey', { userIdOf: (name) => hashId('local', name) });
    });
    opened.push(t);
    return t;
  };
  afterEach(async () => {
    jest.useRealTimers();
    await Promise.all(opened.splice(0).map((t) => t.auth.close()));
  });

  const logIn = async (t: TestApp): Promise<CookieJar> => {
    const jar = new CookieJar();
    jar.keep(await jar.on(request(t.app).post('/auth/local/login')).send({ user: 'victim', passwd: 'pw' }).expect(200));
    return jar;
  };
  const refused = async (res: request.Response, why: RegExp): Promise<void> => {
    expect([res.status, res.body.code]).toEqual([403, 'step_up_required']);
    expect(res.body.error).toMatch(why);
  };

  it.each(CHANGES)('%s: refused with the token alone in X-JWT or ?token= (a stolen token), allowed with the fresh session cookie', async (_name, change) => {
    const t = app();
    const victim = await logIn(t);
    const token = victim.get('JWT') as string;
    await refused(await change(t).set('X-JWT', token), /session cookie with its XSRF header/);
    await refused(await change(t).query({ token }), /session cookie with its XSRF header/);
    const own = await victim.on(change(t));
    expect(own.body.code).not.toBe('step_up_required');
    expect(own.status).not.toBe(401);
  });

  it('refuses a login older than stepUpMaxAge (refreshes do not make it younger), a revoked session and a cookie without its XSRF header; a new login steps up', async () => {
    const t = app({ stepUpMaxAge: 5 * 60_000, tokenDuration: 60_000, xsrfIgnoreMethods: ['POST'] });
    const start = Math.floor(Date.now() / 1000);
    setClock(start);
    const victim = await logIn(t);
    await victim.on(request(t.app).post('/auth/2fa/enroll').send({})).expect(200);
    // xsrfIgnoreMethods lets a POST through the middleware, not a credential change.
    await refused(
      await request(t.app)
        .post('/auth/2fa/enroll')
        .set('Cookie', `JWT=${victim.get('JWT')}`)
        .send({}),
      /XSRF header/,
    );

    setClock(start + 6 * 60);
    const old = victim.keep(await victim.on(request(t.app).post('/auth/2fa/enroll')).send({}));
    await refused(old, /more than 5 minutes old/);
    await victim.on(request(t.app).get('/private')).expect(200);

    const again = await logIn(t);
    await again.on(request(t.app).post('/auth/2fa/enroll').send({})).expect(200);
    // Signed out elsewhere ('refresh' mode: the token itself still reads as valid until it expires).
    await again.on(request(t.app).post('/auth/sessions/revoke-others')).expect(200);
    await refused(await victim.on(request(t.app).post('/auth/2fa/enroll')).send({}), /not a live one/);
    await again.on(request(t.app).post('/auth/2fa/enroll').send({})).expect(200);
  });
});
