import express from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { mustGetUser, type Claims } from '../../src';
import { SECRET, login, makeApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';

const now = (): number => Math.floor(Date.now() / 1000);
const basic = (user: string, passwd: string): string => `Basic ${Buffer.from(`${user}:${passwd}`).toString('base64')}`;

function expiredCookie(extra: Partial<Claims> = {}): { cookie: string; token: string } {
  const token = jwt.sign(
    {
      aud: 'authgate',
      iss: 'authgate',
      exp: now() - 30,
      iat: now() - 1000,
      jti: 'jti-expired',
      user: { name: 'eve', id: 'local_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', picture: '' },
      auth_provider: { name: 'local' },
      ...extra,
    },
    SECRET,
    { algorithm: 'HS256' },
  );
  return { token, cookie: `JWT=${token}; XSRF-TOKEN=jti-expired` };
}

describe('middleware', () => {
  it('refreshes an expired cookie token exactly once under 50 concurrent requests', async () => {
    let updates = 0;
    const { app } = makeApp({
      claimsUpdater: async (claims) => {
        updates++;
        await new Promise((r) => setTimeout(r, 20));
        return claims;
      },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { cookie, token } = expiredCookie();
      const responses = await Promise.all(Array.from({ length: 50 }, () => request(server).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'jti-expired')));
      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
      const issued = new Set(responses.map((r) => setCookies(r).JWT?.value));
      expect(issued.size).toBe(1);
      const [fresh] = [...issued];
      expect(fresh).toBeDefined();
      expect(fresh).not.toBe(token);
      const { payload } = decodeJwt(fresh!);
      expect(payload.jti).toBe('jti-expired');
      expect(payload.exp as number).toBeGreaterThan(now());
      expect(updates).toBe(1);
      expect(responses.every((r) => setCookies(r)['XSRF-TOKEN']?.value === 'jti-expired')).toBe(true);
    } finally {
      server.close();
    }
  });

  it('refuses a cookie token expired longer than the cookie duration', async () => {
    const { app } = makeApp({ cookieDuration: 10_000 });
    const { cookie } = expiredCookie({ exp: now() - 60 });
    await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'jti-expired').expect(401);
  });

  it('clears the cookies when the validator rejects, and lets accepted tokens through', async () => {
    const blocked = new Set(['mallory']);
    const { app } = makeApp({ validator: { validate: (_token, claims) => !blocked.has(claims.user?.name ?? '') } });
    const ok = await login(app, 'alice');
    await request(app).get('/private').set('Cookie', ok.cookie).set('X-XSRF-TOKEN', ok.xsrf).expect(200);
    const bad = await login(app, 'mallory');
    const res = await request(app).get('/private').set('Cookie', bad.cookie).set('X-XSRF-TOKEN', bad.xsrf).expect(401);
    const cleared = setCookies(res);
    expect(cleared.JWT?.value).toBe('');
    expect(cleared.JWT?.attrs['max-age']).toBe('0');
    expect(cleared.JWT?.attrs.expires).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
    expect(cleared['XSRF-TOKEN']?.value).toBe('');
  });

  it('basic auth admin:<adminPasswd> is an admin user; a wrong password is 401', async () => {
    const { app } = makeApp({ adminPasswd: 'sesame' });
    const res = await request(app).get('/admin').set('Authorization', basic('admin', 'sesame')).expect(200);
    expect(res.body).toEqual({ name: 'admin', id: 'admin', picture: '', attrs: { admin: true } });
    await request(app).get('/admin').set('Authorization', basic('admin', 'wrong')).expect(401);
    await request(app).get('/admin').set('Authorization', basic('root', 'sesame')).expect(401);
  });

  it('basicAuthChecker decides instead of adminPasswd', async () => {
    const { app } = makeApp({
      adminPasswd: 'sesame',
      basicAuthChecker: async (user, passwd) => (user === 'svc' && passwd === 'k3y' ? { name: 'svc', id: 'svc', picture: '', role: 'hr' } : false),
    });
    const res = await request(app).get('/hr').set('Authorization', basic('svc', 'k3y')).expect(200);
    expect(res.body.name).toBe('svc');
    await request(app).get('/admin').set('Authorization', basic('admin', 'sesame')).expect(401);
  });

  it('basic auth headers are ignored when basic auth is off', async () => {
    const { app } = makeApp();
    await request(app).get('/private').set('Authorization', basic('admin', '')).expect(401);
  });

  it('rbac matches roles case-insensitively and answers 403 otherwise', async () => {
    const { app } = makeApp({ claimsUpdater: (c) => ({ ...c, user: { ...c.user!, role: c.user!.name === 'hank' ? 'hr' : 'dev' } }) });
    const hr = await login(app, 'hank');
    await request(app).get('/hr').set('Cookie', hr.cookie).set('X-XSRF-TOKEN', hr.xsrf).expect(200);
    const dev = await login(app, 'dora');
    const res = await request(app).get('/hr').set('Cookie', dev.cookie).set('X-XSRF-TOKEN', dev.xsrf).expect(403);
    expect(res.body).toEqual({ error: 'access denied for this role', code: 'forbidden' });
    await request(app).get('/hr').expect(401);
  });

  it('admin answers 403 to non-admins and 200 to admins', async () => {
    const { app } = makeApp({ claimsUpdater: (c) => ({ ...c, user: { ...c.user!, attrs: { admin: c.user!.name === 'root' } } }) });
    const user = await login(app, 'joe');
    const res = await request(app).get('/admin').set('Cookie', user.cookie).set('X-XSRF-TOKEN', user.xsrf).expect(403);
    expect(res.body).toEqual({ error: 'admin access required', code: 'forbidden' });
    const root = await login(app, 'root');
    await request(app).get('/admin').set('Cookie', root.cookie).set('X-XSRF-TOKEN', root.xsrf).expect(200);
  });

  it('trace never rejects: anonymous, bad token, xsrf mismatch, logged in', async () => {
    const { app } = makeApp();
    expect((await request(app).get('/open').expect(200)).body).toEqual({ user: null });
    expect((await request(app).get('/open').set('X-JWT', 'garbage').expect(200)).body).toEqual({ user: null });
    const a = await login(app);
    expect((await request(app).get('/open').set('Cookie', a.cookie).expect(200)).body).toEqual({ user: null });
    const res = await request(app).get('/open').set('Cookie', a.cookie).set('X-XSRF-TOKEN', a.xsrf).expect(200);
    expect(res.body.user.name).toBe('alice');
  });

  it('rejects handshake tokens and tokens of providers no longer registered', async () => {
    const { app } = makeApp();
    const handshake = jwt.sign({ aud: 'authgate', exp: now() + 60, handshake: { state: 's', from: '/' } }, SECRET, { algorithm: 'HS256' });
    await request(app).get('/private').set('X-JWT', handshake).expect(401);
    const gone = jwt.sign({ aud: 'authgate', exp: now() + 60, user: { name: 'x', id: 'x', picture: '' }, auth_provider: { name: 'github' } }, SECRET, { algorithm: 'HS256' });
    const res = await request(app).get('/private').set('X-JWT', gone).expect(401);
    expect(res.body.error).toBe('provider github is not active');
  });

  it('errorHandler answers rejections its own way', async () => {
    const { app } = makeApp({
      errorHandler: (err, _req, res, status) => {
        res.status(status).type('text').send(`nope: ${err.message}`);
      },
    });
    const res = await request(app).get('/private').expect(401);
    expect(res.text).toBe('nope: token not found');
  });

  it('updateUser replaces the request user with userUpdater(user)', async () => {
    const { app, auth } = makeApp({ userUpdater: async (u) => ({ ...u, name: `${u.name}!`, attrs: { vip: true } }) });
    const m = auth.middleware();
    app.get('/updated', m.auth, m.updateUser, (req, res) => {
      res.json(mustGetUser(req));
    });
    const a = await login(app);
    const res = await request(app).get('/updated').set('Cookie', a.cookie).set('X-XSRF-TOKEN', a.xsrf).expect(200);
    expect(res.body.name).toBe('alice!');
    expect(res.body.attrs).toEqual({ vip: true });
  });

  it('throws at wiring time for app.use(m), updateUser without userUpdater, rbac() without roles', () => {
    const { auth } = makeApp();
    const m = auth.middleware();
    const app = express();
    expect(() => app.use(m as never)).toThrow(/m\.auth/);
    expect(() => m.updateUser).toThrow(/userUpdater/);
    expect(() => m.rbac()).toThrow(/role/);
  });

  it('mustGetUser throws when the route is not behind the middleware', async () => {
    const { app } = makeApp();
    app.get('/unguarded', (req, res) => {
      try {
        mustGetUser(req);
        res.json({ ok: true });
      } catch (err) {
        res.status(500).json({ error: (err as Error).message });
      }
    });
    const res = await request(app).get('/unguarded').expect(500);
    expect(res.body.error).toMatch(/not behind the authgate middleware/);
  });
});

describe('MemoryRefreshCache', () => {
  it('keeps at most maxEntries, dropping the oldest, and forgets entries after the TTL', async () => {
    const { MemoryRefreshCache } = jest.requireActual('../../src') as typeof import('../../src');
    const cache = new MemoryRefreshCache(4, 50);
    for (let i = 0; i < 10; i++) cache.set(`t${i}`, { token: `n${i}`, claims: {} });
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.get('t0')).toBeUndefined();
    expect(cache.get('t9')?.token).toBe('n9');
    await new Promise((r) => setTimeout(r, 80));
    expect(cache.get('t9')).toBeUndefined();
  });
});

describe('jwtQuery: false', () => {
  it('accepts no token in the URL, still in X-JWT and the cookie', async () => {
    const { app } = makeApp({ jwtQuery: false });
    const s = await login(app);
    const refused = await request(app).get(`/private?token=${s.jwt}`).expect(401);
    expect(refused.body.error).toBe('token not found');
    await request(app).get('/private').set('X-JWT', s.jwt).expect(200);
    await request(app).get('/private').set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf).expect(200);
    await request(makeApp().app).get(`/private?token=${s.jwt}`).expect(200);
  });
});
