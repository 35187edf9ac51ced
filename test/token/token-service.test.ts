import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createAuth } from '../../src';
import { SECRET, login, makeApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { signRaw } from '../support/raw-jwt';

const now = (): number => Math.floor(Date.now() / 1000);
const user = { name: 'bob', id: 'local_0123456789012345678901234567890123456789', picture: '' };

function forge(payload: Record<string, unknown>, secret = SECRET, options: jwt.SignOptions = {}): string {
  return jwt.sign({ aud: 'authgate', exp: now() + 600, iat: now(), jti: 'j1', user, auth_provider: { name: 'local' }, ...payload }, secret, {
    algorithm: 'HS256',
    ...options,
  });
}

describe('token service: claims and cookies', () => {
  it('issues the go-pkgz claim layout in an HttpOnly JWT cookie and a readable XSRF cookie', async () => {
    const { app } = makeApp();
    const res = await request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'pw' }).expect(200);
    const cookies = setCookies(res);
    const jwtCookie = cookies.JWT;
    const xsrfCookie = cookies['XSRF-TOKEN'];
    expect(jwtCookie).toBeDefined();
    expect(xsrfCookie).toBeDefined();
    const { header, payload } = decodeJwt(jwtCookie!.value);
    expect(header.alg).toBe('HS256');
    expect(Object.keys(payload).sort()).toEqual(['aud', 'auth_provider', 'auth_time', 'exp', 'iat', 'iss', 'jti', 'nbf', 'user']);
    expect(payload.auth_time).toBe(payload.iat);
    expect(typeof payload.aud).toBe('string');
    expect(payload.iss).toBe('authgate');
    expect(payload.auth_provider).toEqual({ name: 'local' });
    expect(payload.jti).toBe(xsrfCookie!.value);
    expect((payload.exp as number) - (payload.iat as number)).toBe(15 * 60);
    const u = payload.user as Record<string, unknown>;
    expect(u.name).toBe('alice');
    expect(u.id).toMatch(/^local_[0-9a-f]{40}$/);
    expect(u.picture).toMatch(/^http:\/\/127\.0\.0\.1:8080\/avatar\/[0-9a-f]{40}\.image$/);
    expect(jwtCookie!.attrs.httponly).toBe(true);
    expect(xsrfCookie!.attrs.httponly).toBeUndefined();
    expect(jwtCookie!.attrs.path).toBe('/');
    expect(jwtCookie!.attrs['max-age']).toBe(String(31 * 24 * 3600));
    expect(jwtCookie!.attrs.samesite).toBe('Lax');
    expect(jwtCookie!.attrs.secure).toBeUndefined();
    expect(res.body).toEqual({ ...u, aud: 'authgate' });
  });

  it('session=1 makes cookies without Max-Age and sets sess_only', async () => {
    const { app } = makeApp();
    const res = await request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'pw', session: '1' }).expect(200);
    const cookies = setCookies(res);
    expect(cookies.JWT!.attrs['max-age']).toBeUndefined();
    expect(cookies['XSRF-TOKEN']!.attrs['max-age']).toBeUndefined();
    expect(decodeJwt(cookies.JWT!.value).payload.sess_only).toBe(true);
  });

  it('marks cookies Secure under an https url and honours names, domain, SameSite and durations', async () => {
    const { app } = makeApp({
      url: 'https://example.com',
      jwtCookieName: 'SESS',
      xsrfCookieName: 'CSRF',
      jwtCookieDomain: 'example.com',
      sameSite: 'strict',
      cookieDuration: 3_600_000,
      tokenDuration: 60_000,
      issuer: 'me',
    });
    const res = await request(app).get('/auth/local/login?user=a&passwd=pw').expect(200);
    const cookies = setCookies(res);
    expect(cookies.SESS!.attrs.secure).toBe(true);
    expect(cookies.SESS!.attrs.domain).toBe('example.com');
    expect(cookies.SESS!.attrs.samesite).toBe('Strict');
    expect(cookies.SESS!.attrs['max-age']).toBe('3600');
    expect(cookies.CSRF!.value).toBe(decodeJwt(cookies.SESS!.value).payload.jti);
    const { payload } = decodeJwt(cookies.SESS!.value);
    expect(payload.iss).toBe('me');
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);
  });

  it('sendJwtHeader sends the token in X-JWT instead of cookies', async () => {
    const { app } = makeApp({ sendJwtHeader: true });
    const res = await request(app).get('/auth/local/login?user=a&passwd=pw').expect(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    const token = res.headers['x-jwt'] as string;
    expect(decodeJwt(token).payload.user).toMatchObject({ name: 'a' });
    await request(app).get('/private').set('X-JWT', token).expect(200);
  });

  it('reads the token from the query, then the header, then the cookie', async () => {
    const { app } = makeApp();
    const good = forge({});
    await request(app).get(`/private?token=${good}`).expect(200);
    await request(app).get('/private').set('X-JWT', good).expect(200);
    // a bad query token is not rescued by a good header: the query wins
    await request(app).get('/private?token=garbage').set('X-JWT', good).expect(401);
    await request(app).get('/private').set('Cookie', `JWT=${good}`).set('X-XSRF-TOKEN', 'j1').expect(200);
  });

  it('answers 401 on an XSRF mismatch or a missing XSRF header for cookie tokens', async () => {
    const { app } = makeApp();
    const { cookie, xsrf } = await login(app);
    const missing = await request(app).get('/private').set('Cookie', cookie).expect(401);
    expect(missing.body.error).toMatch(/^xsrf mismatch: send the XSRF-TOKEN cookie's value in the X-XSRF-TOKEN header \(for server-rendered pages, set xsrfIgnoreMethods/);
    const wrong = await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', `${xsrf}x`).expect(401);
    expect(wrong.body.error).toBe("xsrf mismatch: the X-XSRF-TOKEN header is not this session's XSRF-TOKEN cookie value");
    await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200);
  });

  it('skips the XSRF check with disableXsrf and for xsrfIgnoreMethods', async () => {
    const off = makeApp({ disableXsrf: true });
    const a = await login(off.app);
    await request(off.app).get('/private').set('Cookie', a.cookie).expect(200);
    const ignore = makeApp({ xsrfIgnoreMethods: ['get'] });
    const b = await login(ignore.app);
    await request(ignore.app).get('/private').set('Cookie', b.cookie).expect(200);
    await request(ignore.app).post('/private').set('Cookie', b.cookie).expect(401);
  });

  it('rejects expired header and query tokens with 401', async () => {
    const { app } = makeApp();
    const expired = forge({ exp: now() - 10, iat: now() - 1000 });
    const h = await request(app).get('/private').set('X-JWT', expired).expect(401);
    expect(h.body.error).toBe('token is expired');
    await request(app).get(`/private?token=${expired}`).expect(401);
  });

  it('rejects alg none, RS256, a tampered signature, a wrong secret, exp as a string and oversized tokens', async () => {
    const { app } = makeApp();
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ aud: 'authgate', exp: now() + 600, user })).toString('base64url')}.`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256 = jwt.sign({ aud: 'authgate', exp: now() + 600, user }, privateKey, { algorithm: 'RS256' });
    const good = forge({});
    const [h, p, s = ''] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(good).payload, user: { ...user, attrs: { admin: true } } })).toString('base64url')}.${s}`;
    const badSig = `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`;
    const wrongSecret = forge({}, 'another-secret-0123456789');
    const stringExp = signRaw({ ...decodeJwt(good).payload, exp: String(now() + 600) }, SECRET);
    const kidInjection = signRaw(decodeJwt(good).payload, SECRET, { alg: 'HS256', kid: '../../dev/null' });
    const huge = forge({ pad: 'x'.repeat(9000) });
    for (const token of [none, rs256, tampered, badSig, wrongSecret, stringExp, huge, 'a.b', 'a.b.c', '']) {
      const res = await request(app).get('/private').set('X-JWT', token);
      expect(res.status).toBe(401);
      expect(typeof res.body.error).toBe('string');
    }
    await request(app).get('/private').set('X-JWT', good).expect(200);
    // kid is never used to pick a key: the secret comes only from secretReader(aud)
    await request(app).get('/private').set('X-JWT', kidInjection).expect(200);
  });

  it('rejects aud arrays with more than one value and aud outside audiences', async () => {
    const { app } = makeApp({ audiences: ['site-a', 'site-b'] });
    await request(app)
      .get('/private')
      .set('X-JWT', forge({ aud: 'site-a' }))
      .expect(200);
    await request(app)
      .get('/private')
      .set('X-JWT', forge({ aud: ['site-a'] }))
      .expect(200);
    await request(app)
      .get('/private')
      .set('X-JWT', forge({ aud: ['site-a', 'site-b'] }))
      .expect(401);
    await request(app)
      .get('/private')
      .set('X-JWT', forge({ aud: 'site-c' }))
      .expect(401);
  });

  it('refuses a login with aud outside audiences (403) and issues the requested one inside', async () => {
    const { app } = makeApp({ audiences: ['site-a', 'site-b'] });
    const bad = await request(app).get('/auth/local/login?user=a&passwd=pw&aud=site-c').expect(403);
    expect(bad.body.error).toMatch(/aud/);
    expect(bad.headers['set-cookie']).toBeUndefined();
    const res = await request(app).get('/auth/local/login?user=a&passwd=pw&aud=site-b').expect(200);
    expect(decodeJwt(setCookies(res).JWT!.value).payload.aud).toBe('site-b');
    const def = await request(app).get('/auth/local/login?user=a&passwd=pw').expect(200);
    expect(decodeJwt(setCookies(def).JWT!.value).payload.aud).toBe('site-a');
  });

  it('says what to do when the secret is missing, and when it was passed empty (an unset environment variable)', () => {
    expect(() => createAuth({ url: 'http://127.0.0.1:8080' })).toThrow(/a signing secret is required: createAuth\(\{ secret \}\) \(at least 32 random characters, e\.g\. from openssl rand -hex 32\)/);
    expect(() => createAuth({ url: 'http://127.0.0.1:8080', secret: process.env.AUTHGATE_SURELY_UNSET_VARIABLE as string })).toThrow(
      /got undefined: is the environment variable it is read from \(such as AUTH_SECRET\) set\?/,
    );
    expect(() => createAuth({ url: 'http://127.0.0.1:8080', secret: '' })).toThrow(/got an empty string/);
  });

  it('signs with secretReader(aud) per audience', async () => {
    const secrets: Record<string, string> = { one: 'secret-one-0123456789', two: 'secret-two-0123456789' };
    const seen: string[] = [];
    const { app } = makeApp({
      secret: undefined,
      secretReader: {
        get: async (aud: string) => {
          seen.push(aud);
          return secrets[aud] ?? 'fallback-secret-0123456789';
        },
      },
    });
    const res = await request(app).get('/auth/local/login?user=a&passwd=pw&aud=two').expect(200);
    const token = setCookies(res).JWT!.value;
    expect(() => jwt.verify(token, secrets.two!, { algorithms: ['HS256'] })).not.toThrow();
    expect(() => jwt.verify(token, secrets.one!, { algorithms: ['HS256'] })).toThrow();
    expect(seen).toContain('two');
    await request(app).get('/private').set('X-JWT', token).expect(200);
  });

  it('runs the claimsUpdater at creation and keeps extra claims', async () => {
    const { app } = makeApp({
      claimsUpdater: (claims) => ({ ...claims, tenant: 'acme', user: { ...claims.user!, role: 'HR' } }),
    });
    const { jwt: token } = await login(app);
    const { payload } = decodeJwt(token);
    expect(payload.tenant).toBe('acme');
    expect((payload.user as Record<string, unknown>).role).toBe('HR');
  });

  it('throws at start-up without a secret, with a bad url or bad durations', () => {
    expect(() => createAuth({ url: 'http://x' })).toThrow(/secret/);
    expect(() => createAuth({ url: 'not a url', secret: SECRET })).toThrow(/url/);
    expect(() => createAuth({ url: 'ftp://x', secret: SECRET })).toThrow(/http/);
    expect(() => createAuth({ url: 'http://x', secret: SECRET, tokenDuration: -1 })).toThrow(/tokenDuration/);
    expect(() => createAuth({ url: 'http://x', secret: SECRET, sameSite: 'none' })).toThrow(/secure/);
    expect(() => createAuth({ url: 'http://x', secret: SECRET, audiences: [''] })).toThrow(/audiences/);
    expect(() => createAuth({ url: 'http://x', secret: SECRET, jwtCookieName: 'bad name' })).toThrow(/jwtCookieName/);
  });
});
