import { randomBytes } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { createAccountRouter, createStateStore, senderFunc, type Auth } from '../../src';
import { login, makeApp } from '../support/auth-app';
import { eventually } from '../support/eventually';
import { describePostgres, describeRedis, startPostgres, startRedis, type TestServer } from '../support/servers';

/** The e-mail verify flow on a given state store: mailed tokens are read from `sent`. */
function verifyApp(stateStore: string): { app: express.Express; auth: Auth; sent: string[] } {
  const sent: string[] = [];
  const { app, auth } = makeApp({ stateStore, storeTimeout: 1000, rateLimits: false }, (a) =>
    a.addVerifyProvider(
      'email',
      'token {{.Token}} ',
      senderFunc((_to, text) => void sent.push(/token (\S+)/.exec(text)![1]!)),
    ),
  );
  return { app, auth, sent };
}

describeRedis('real faults: the Redis server stopped and started again', () => {
  let redis: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.destroy());

  it('answers 503 JSON at once while Redis is down, accepts a one-shot token exactly once, and recovers', async () => {
    const { app, auth, sent } = verifyApp(`${redis.url}?prefix=f${randomBytes(4).toString('hex')}:`);
    try {
      await request(app).get('/auth/email/login?user=u&address=u@example.com').expect(200);
      await redis.stop();
      const started = Date.now();
      const down = await request(app).get(`/auth/email/login?token=${sent[0]}`);
      expect([down.status, down.body]).toEqual([503, { error: 'the state store is unavailable', code: 'unavailable' }]);
      expect(down.headers['set-cookie']).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(2000);
      await redis.restart();
      await eventually(async () => void (await request(app).get(`/auth/email/login?token=${sent[0]}`).expect(200)));
      await request(app).get(`/auth/email/login?token=${sent[0]}`).expect(403);
    } finally {
      await auth.close();
    }
  }, 60_000);
});

/** A store's subscription goes not-live (with a gap) when its server stops, and is live again and hears messages after the restart. */
async function subscriptionAcrossRestart(server: TestServer, uri: string): Promise<void> {
  const [listener, publisher] = [createStateStore(uri), createStateStore(uri)];
  const heard: string[] = [];
  let gaps = 0;
  const subscription = listener.subscribe!(
    'restart-test',
    (m) => heard.push(m),
    () => gaps++,
  );
  try {
    await eventually(async () => expect(subscription.live).toBe(true));
    await server.stop();
    await eventually(async () => expect(subscription.live).toBe(false));
    const gapsWhileDown = gaps;
    expect(gapsWhileDown).toBeGreaterThanOrEqual(2);
    await server.restart();
    await eventually(async () => expect(subscription.live).toBe(true));
    expect(gaps).toBeGreaterThan(gapsWhileDown);
    await eventually(async () => {
      await publisher.publish!('restart-test', 'after');
      expect(heard).toContain('after');
    });
  } finally {
    await subscription.close();
    await Promise.all([listener.close(), publisher.close()]);
  }
}

/**
 * Two instances in 'every-request' mode on a state store whose server is stopped and started:
 * logout answers 503 and revokes nothing; revoked stays revoked; pub/sub works again afterwards.
 */
async function sessionsAcrossRestart(server: TestServer, stateStore: string): Promise<void> {
  await subscriptionAcrossRestart(server, stateStore);
  const [one, two] = [makeApp({ stateStore, storeTimeout: 1000, revocationCheck: 'every-request' }), makeApp({ stateStore, storeTimeout: 1000, revocationCheck: 'every-request' })];
  const get = (app: express.Express, path: string, s: { cookie: string; xsrf: string }): request.Test => request(app).get(path).set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf);
  try {
    const kept = await login(one.app);
    const ended = await login(one.app);
    await get(two.app, '/private', kept).expect(200);
    await get(one.app, '/auth/logout', ended).expect(200);
    await server.stop();
    const out = await get(one.app, '/auth/logout', kept);
    expect([out.status, out.body]).toEqual([503, { error: 'a store is unavailable, try again', code: 'unavailable' }]);
    expect(out.headers['set-cookie']).toBeUndefined();
    // Until the instance notices the lost connection it may still answer from its cache; never a 401 for a live session.
    expect([200, 503]).toContain((await get(two.app, '/private', kept)).status);
    await eventually(async () => void (await get(two.app, '/private', kept).expect(503)));
    expect((await get(two.app, '/private', ended)).status).not.toBe(200);
    await server.restart();
    await eventually(async () => void (await get(two.app, '/private', kept).expect(200)));
    await get(two.app, '/private', ended).expect(401);
    // The subscriptions are back: a logout on one is refused at once on the other.
    await eventually(async () => {
      const fresh = await login(one.app);
      await get(two.app, '/private', fresh).expect(200);
      await get(two.app, '/private', fresh).expect(200);
      await get(one.app, '/auth/logout', fresh).expect(200);
      await get(two.app, '/private', fresh).expect(401);
    });
    await get(two.app, '/private', kept).expect(200);
  } finally {
    await Promise.all([one.auth.close(), two.auth.close()]);
  }
}

describeRedis('real faults: sessions while the Redis server (with an append-only file) is stopped and started again', () => {
  let redis: TestServer;
  beforeAll(async () => {
    redis = await startRedis({ appendOnly: true });
  });
  afterAll(() => redis?.destroy());

  it("'every-request': logout answers 503 and revokes nothing while Redis is down; revoked stays revoked; pub/sub works again after the restart", async () => {
    await sessionsAcrossRestart(redis, `${redis.url}?prefix=fs${randomBytes(4).toString('hex')}:`);
  }, 60_000);
});

describePostgres('real faults: sessions while the PostgreSQL server is stopped and started again', () => {
  let pg: TestServer;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.destroy());

  it("'every-request': logout answers 503 and revokes nothing while PostgreSQL is down; revoked stays revoked; LISTEN works again after the restart", async () => {
    await sessionsAcrossRestart(pg, `${pg.url}?schema=fs_${randomBytes(4).toString('hex')}`);
  }, 60_000);
});

describePostgres('real faults: the PostgreSQL server stopped and started again', () => {
  let pg: TestServer;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.destroy());

  it('logins, accounts and avatars answer 503 while PostgreSQL is down, lose nothing, and recover', async () => {
    const uri = `${pg.url}?schema=f_${randomBytes(4).toString('hex')}`;
    const { app, auth, sent } = verifyApp(uri);
    const { app: withAvatars, auth: auth2 } = makeApp({ stateStore: uri, avatarStore: uri, storeTimeout: 1000, rateLimits: false });
    const accounts = createAccountRouter({
      store: uri,
      stateStore: uri,
      sender: senderFunc(() => undefined),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      rateLimits: false,
      storeTimeout: 1000,
    });
    const accountApp = express().use('/account', accounts);
    try {
      await request(accountApp).post('/account/signup').send({ Email: 'pg@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(202);
      const stored = (await accounts.store.getByEmail('pg@example.com'))!;
      await accounts.store.update(stored.Id, (a) => ({ ...a, Approved: true }));
      const login = await request(withAvatars).get('/auth/local/login?user=pic&passwd=pw').expect(200);
      const avatarPath = new URL(login.body.picture as string).pathname;
      const etag = (await request(withAvatars).get(avatarPath).expect(200)).headers.etag;
      await request(app).get('/auth/email/login?user=u&address=u@example.com').expect(200);

      await pg.stop();
      const down = await request(app).get(`/auth/email/login?token=${sent[0]}`);
      expect(down.status).toBe(503);
      expect(down.headers['set-cookie']).toBeUndefined();
      expect((await request(withAvatars).get(avatarPath)).status).toBe(503);
      const tokenDown = await request(accountApp).post('/account/tokens').send({ grant_type: 'password', email: 'pg@example.com', password: 'password-1' });
      expect([tokenDown.status, tokenDown.body.Message]).toEqual([503, 'Unavailable']);

      await pg.restart();
      await eventually(async () => void (await request(app).get(`/auth/email/login?token=${sent[0]}`).expect(200)));
      await request(app).get(`/auth/email/login?token=${sent[0]}`).expect(403);
      await eventually(async () => expect((await request(withAvatars).get(avatarPath).expect(200)).headers.etag).toBe(etag));
      await eventually(async () => void (await request(accountApp).post('/account/tokens').send({ grant_type: 'password', email: 'pg@example.com', password: 'password-1' }).expect(200)));
    } finally {
      await Promise.all([auth.close(), auth2.close(), accounts.close()]);
    }
  }, 90_000);
});
