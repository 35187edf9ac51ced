import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { login, makeApp } from '../support/auth-app';
import { eventually } from '../support/eventually';
import { describePostgres, describeRedis, startPostgres, startRedis, type TestServer } from '../support/servers';

/** Both servers are needed: skipped (with the reason printed) when either is not installed. */
const describeBoth = describeRedis === describePostgres ? describeRedis : describe.skip;

/** The degraded-mode table of docs/several-instances.md, row by row, on real servers stopped for real. */
describeBoth('degraded mode: what works while a store is down', () => {
  let redis: TestServer;
  let postgres: TestServer;
  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([redis?.destroy(), postgres?.destroy()]);
  });

  const appOn = (tokenDuration = 60_000) =>
    makeApp({
      database: `${postgres.url}?schema=d_${randomBytes(3).toString('hex')}`,
      stateStore: `${redis.url}?prefix=d${randomBytes(3).toString('hex')}:`,
      revocationCheck: 'refresh',
      storeTimeout: 1500,
      tokenDuration,
    });
  const get = (app: Parameters<typeof request>[0], s: { cookie: string; xsrf: string }) => request(app).get('/private').set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf);

  it('the database down: a valid token is served, a login answers 503, a logout still works; all back by itself', async () => {
    const { app, auth } = appOn();
    try {
      const kept = await login(app, 'kept');
      const ended = await login(app, 'ended');
      await postgres.stop();
      await get(app, kept).expect(200);
      const refused = await request(app).post('/auth/local/login').send({ user: 'new', passwd: 'pw' });
      expect([refused.status, refused.body.code, refused.headers['set-cookie']]).toEqual([503, 'unavailable', undefined]);
      await request(app).get('/auth/logout').set('Cookie', ended.cookie).set('X-XSRF-TOKEN', ended.xsrf).expect(200);
      await postgres.restart();
      await eventually(async () => void (await login(app, 'new')));
      await get(app, kept).expect(200);
    } finally {
      await auth.close();
    }
  }, 60_000);

  it("the state store down ('refresh'): a valid token is served, a refresh answers 503 and keeps the cookie, logins and logouts answer 503 and change nothing", async () => {
    const { app, auth } = appOn(3000);
    try {
      const other = await login(app, 'bob');
      const s = await login(app, 'alice');
      const loggedIn = Date.now();
      await redis.stop();
      await get(app, s).expect(200);
      await new Promise((r) => setTimeout(r, Math.max(0, loggedIn + 3100 - Date.now())));
      const refresh = await get(app, s);
      expect([refresh.status, refresh.body.code, refresh.headers['set-cookie']]).toEqual([503, 'unavailable', undefined]);
      expect((await request(app).post('/auth/local/login').send({ user: 'carol', passwd: 'pw' })).status).toBe(503);
      const out = await request(app).get('/auth/logout').set('Cookie', other.cookie).set('X-XSRF-TOKEN', other.xsrf);
      expect([out.status, out.headers['set-cookie']]).toEqual([503, undefined]);
      await redis.restart();
      // The state store here forgets on restart (no AOF): what it held is gone, so the sessions are over.
      await eventually(async () => void (await login(app, 'carol')));
    } finally {
      await auth.close();
    }
  }, 60_000);
});
