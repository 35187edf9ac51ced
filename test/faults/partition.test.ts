import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { createStateStore, createUserStore, senderFunc } from '../../src';
import { openGuarded } from '../../src/internal/guarded-store';
import { login, makeApp } from '../support/auth-app';
import { describeMysql, describePostgres, describeRedis, startMysql, startRedis, type TestServer } from '../support/servers';
import { sharedTopology, startRedisCluster, startSentinelSet } from '../support/redis-topologies';
import { postgresBehindProxy, startPausableProxy, type PausableProxy } from '../support/tcp-proxy';

/**
 * One instance cut off from Redis by a partition that holds its bytes (a paused TCP proxy), the
 * other reaching Redis: what the cut-off instance answered 503 to must not happen when the
 * partition ends (docs/stores.md: a 503 means nothing changed).
 */
describeRedis('a network partition between one instance and Redis', () => {
  let redis: TestServer;
  let proxy: PausableProxy;
  beforeAll(async () => {
    redis = await startRedis();
    proxy = await startPausableProxy(Number(new URL(redis.url).port));
  });
  afterAll(async () => {
    await proxy?.close();
    await redis?.destroy();
  });

  it('an e-mail token the cut-off instance answered 503 to is still good on the other once the partition ends', async () => {
    const prefix = `p${randomBytes(4).toString('hex')}:`;
    await tokenAfterPartition(proxy, `redis://127.0.0.1:${proxy.port}/0?prefix=${prefix}`, `${redis.url}?prefix=${prefix}`);
  });

  it('a clock reading held by the partition is never trusted: once it ends, changes land', async () => {
    const prefix = `c${randomBytes(4).toString('hex')}:`;
    await clockReadingHeld(proxy, `redis://127.0.0.1:${proxy.port}/0?prefix=${prefix}`, `${redis.url}?prefix=${prefix}`);
  });

  it('a logout the cut-off instance answered 503 to leaves the session live once the partition ends', async () => {
    const prefix = `p${randomBytes(4).toString('hex')}:`;
    const cutOff = makeApp({ stateStore: `redis://127.0.0.1:${proxy.port}/0?prefix=${prefix}`, storeTimeout: 1000, rateLimits: false, revocationCheck: 'every-request' });
    const other = makeApp({ stateStore: `${redis.url}?prefix=${prefix}`, storeTimeout: 1000, rateLimits: false, revocationCheck: 'every-request' });
    try {
      const session = await login(other.app, 'lou');
      expect((await request(cutOff.app).get('/private').set('Cookie', session.cookie).set('X-XSRF-TOKEN', session.xsrf)).status).toBe(200);
      proxy.pause();
      const out = await request(cutOff.app).get('/auth/logout').set('Cookie', session.cookie).set('X-XSRF-TOKEN', session.xsrf);
      expect(out.status).toBe(503);
      proxy.resume();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await request(other.app).get('/private').set('Cookie', session.cookie).set('X-XSRF-TOKEN', session.xsrf)).status).toBe(200);
    } finally {
      proxy.resume();
      await cutOff.auth.close();
      await other.auth.close();
    }
  });
});

describeRedis('a network partition between one instance and a Redis Sentinel master', () => {
  // Slow to call the master down: the pause below is a partition, not a failover.
  const sentinel = sharedTopology(() => startSentinelSet({ replicas: 1, sentinels: 3, proxied: true, downAfterMs: 10_000 }));

  it('an e-mail token the cut-off instance answered 503 to is still good on the other once the partition ends', async () => {
    const set = await sentinel();
    const prefix = `s${randomBytes(4).toString('hex')}:`;
    await tokenAfterPartition(set.proxy!, `${set.uri}?prefix=${prefix}`, `redis://127.0.0.1:${set.master.port}/0?prefix=${prefix}`);
  }, 60_000);
});

describeRedis('a network partition between one instance and a Redis Cluster', () => {
  const cluster = sharedTopology(() => startRedisCluster({ proxied: true }));

  it('an e-mail token the cut-off instance answered 503 to is still good on the other once the partition ends', async () => {
    const set = await cluster();
    // One hash tag: every key of the store is in one slot, whose master the other instance reaches directly.
    const prefix = `{c${randomBytes(4).toString('hex')}}:`;
    const master = await set.masterOf(prefix);
    const all = set.proxies!;
    const partition = { pause: () => all.forEach((p) => p.pause()), resume: () => all.forEach((p) => p.resume()) };
    await tokenAfterPartition(partition, `${set.uri}?prefix=${prefix}`, `redis://127.0.0.1:${master.port}/0?prefix=${prefix}`);
  }, 60_000);
});

describePostgres('a network partition between one instance and PostgreSQL (the state store)', () => {
  const db = postgresBehindProxy();

  it('an e-mail token the cut-off instance answered 503 to is still good on the other once the partition ends', async () => {
    await tokenAfterPartition(db.proxy, db.through, db.pg.url);
  });

  it('an e-mail link whose login answered 503 (its user store cut off after the link was claimed) works once the cut ends, and once only', async () => {
    const sent: string[] = [];
    const { app, auth } = makeApp({ userStore: `${db.through}?schema=once_${randomBytes(3).toString('hex')}`, storeTimeout: 1000, rateLimits: false }, (a) =>
      a.addVerifyProvider(
        'email',
        'token {{.Token}} ',
        senderFunc((_to, text) => void sent.push(/token (\S+)/.exec(text)![1]!)),
      ),
    );
    try {
      // The user store is connected before the cut (a first login makes its tables).
      await login(app, 'before');
      await request(app).get('/auth/email/login?user=u&address=u@example.com').expect(200);
      db.proxy.pause();
      const cut = await request(app).get(`/auth/email/login?token=${sent[0]}`);
      expect([cut.status, cut.body.code, cut.headers['set-cookie']]).toEqual([503, 'unavailable', undefined]);
      db.proxy.resume();
      const again = await request(app).get(`/auth/email/login?token=${sent[0]}`);
      expect([again.status, again.body.name]).toEqual([200, 'u']);
      const twice = await request(app).get(`/auth/email/login?token=${sent[0]}`);
      expect([twice.status, twice.body.error]).toEqual([403, 'confirmation token was already used']);
    } finally {
      db.proxy.resume();
      await auth.close();
    }
  });

  it('a record store transaction held by the partition never commits after its caller was answered', async () => {
    const cutOff = openGuarded(db.through, createUserStore, 'user store', 1000);
    const direct = openGuarded(db.pg.url, createUserStore, 'user store', 1000);
    try {
      const now = Date.now();
      expect(await direct.add({ id: 'local_partition', name: 'Pat', logins: [], created: now, lastLogin: now, status: 'active' })).toBe(true);
      // A connection of the cut-off store is made before the cut.
      expect((await cutOff.get('local_partition'))?.status).toBe('active');
      db.proxy.pause();
      await expect(cutOff.update('local_partition', (u) => ({ ...u, status: 'banned' }))).rejects.toThrow(/did not answer within 1000 ms/);
      db.proxy.resume();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await direct.get('local_partition'))?.status).toBe('active');
    } finally {
      db.proxy.resume();
      await cutOff.close().catch(() => undefined);
      await direct.close();
    }
  });

  it('a COMMIT the partition holds on its way does nothing when it arrives after its caller was answered', async () => {
    const cutOff = openGuarded(db.through, createUserStore, 'user store', 1000);
    const direct = openGuarded(db.pg.url, createUserStore, 'user store', 1000);
    const locker = new Client({ connectionString: db.pg.url });
    try {
      const now = Date.now();
      expect(await direct.add({ id: 'local_commit_held', name: 'Pat', logins: [], created: now, lastLogin: now, status: 'active' })).toBe(true);
      expect((await cutOff.get('local_commit_held'))?.status).toBe('active');
      // Another session holds the record's row for 400 ms: the change waits on the server (busy, not
      // idle, so no idle timeout ends it), and sends its COMMIT in time; the partition holds it
      // until the caller was answered 503, for less than the server's idle timeout.
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query(`SELECT * FROM authgate_users_doc FOR UPDATE`);
      setTimeout(() => void locker.query('COMMIT'), 400);
      const held = db.proxy.pauseAt('COMMIT');
      const change = cutOff.update('local_commit_held', (u) => ({ ...u, status: 'banned' }));
      // On a busy machine the change may miss its deadline before it sends the COMMIT: nothing is held then.
      await Promise.race([held, change.catch(() => undefined)]);
      await expect(change).rejects.toThrow(/did not answer within 1000 ms/);
      db.proxy.resume();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await direct.get('local_commit_held'))?.status).toBe('active');
    } finally {
      db.proxy.resume();
      await locker.end().catch(() => undefined);
      await cutOff.close().catch(() => undefined);
      await direct.close();
    }
  });

  it("a change that waits on a lock past its caller's time limit does not land when the lock is freed", async () => {
    const direct = openGuarded(db.pg.url, createUserStore, 'user store', 1000);
    const locker = new Client({ connectionString: db.pg.url });
    try {
      const now = Date.now();
      expect(await direct.add({ id: 'local_late_start', name: 'Pat', logins: [], created: now, lastLogin: now, status: 'active' })).toBe(true);
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query(`SELECT * FROM authgate_users_doc FOR UPDATE`);
      setTimeout(() => void locker.query('COMMIT'), 1500);
      // The lock outlasts the call: the change is answered 503 at 1000 ms and must not land at 1500.
      await expect(direct.update('local_late_start', (u) => ({ ...u, status: 'banned' }))).rejects.toThrow(/did not answer within 1000 ms/);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await direct.get('local_late_start'))?.status).toBe('active');
    } finally {
      await locker.end().catch(() => undefined);
      await direct.close();
    }
  });

  it('a clock reading held by the partition is never trusted: once it ends, changes land', async () => {
    await clockReadingHeld(db.proxy, db.through, db.pg.url);
  });
});

describeMysql('a network partition between one instance and MariaDB (the record stores)', () => {
  let db: TestServer;
  let proxy: PausableProxy;
  beforeAll(async () => {
    db = await startMysql();
    proxy = await startPausableProxy(Number(new URL(db.url).port));
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await db?.destroy();
  });

  it('a transaction whose statements the partition held never commits after its caller was answered', async () => {
    const through = new URL(db.url);
    through.port = String(proxy.port);
    const cutOff = openGuarded(through.href, createUserStore, 'user store', 1000);
    const direct = openGuarded(db.url, createUserStore, 'user store', 1000);
    try {
      const now = Date.now();
      expect(await direct.add({ id: 'local_partition', name: 'Pat', logins: [], created: now, lastLogin: now, status: 'active' })).toBe(true);
      expect((await cutOff.get('local_partition'))?.status).toBe('active');
      // The partition starts with the change's first write: its statements arrive after the 503.
      const held = proxy.pauseAt('UPDATE');
      const change = cutOff.update('local_partition', (u) => ({ ...u, status: 'banned' }));
      await held;
      await expect(change).rejects.toThrow(/did not answer within 1000 ms/);
      proxy.resume();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await direct.get('local_partition'))?.status).toBe('active');
    } finally {
      proxy.resume();
      await cutOff.close().catch(() => undefined);
      await direct.close();
    }
  });
});

/**
 * The first change of a state store after it connected reads the server's clock; the partition holds
 * that reading past the time limit. The reading is never trusted: once the partition ends, changes land.
 */
async function clockReadingHeld(proxy: PausableProxy, throughProxy: string, direct: string): Promise<void> {
  const cutOff = openGuarded(throughProxy, createStateStore, 'state store', 1000);
  const other = openGuarded(direct, createStateStore, 'state store', 1000);
  try {
    expect(await cutOff.get('clock-nothing')).toBeUndefined();
    proxy.pause();
    await expect(cutOff.set('clock-a', 1, 60_000)).rejects.toThrow(/did not answer/);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    proxy.resume();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await other.get('clock-a')).toBeUndefined();
    await cutOff.set('clock-b', 2, 60_000);
    expect(await other.get('clock-b')).toBe(2);
  } finally {
    proxy.resume();
    await cutOff.close().catch(() => undefined);
    await other.close();
  }
}

/**
 * Two instances on one state store, one through the proxy: an e-mail token the cut-off instance
 * answered 503 to while the partition held its commands is still good on the other once it ends.
 */
async function tokenAfterPartition(proxy: Pick<PausableProxy, 'pause' | 'resume'>, throughProxy: string, direct: string): Promise<void> {
  const sent: string[] = [];
  const instance = (stateStore: string): ReturnType<typeof makeApp> =>
    makeApp({ stateStore, storeTimeout: 1000, rateLimits: false }, (a) =>
      a.addVerifyProvider(
        'email',
        'token {{.Token}} ',
        senderFunc((_to, text) => void sent.push(/token (\S+)/.exec(text)![1]!)),
      ),
    );
  const cutOff = instance(throughProxy);
  const other = instance(direct);
  try {
    await request(other.app).get('/auth/email/login?user=u&address=u@example.com').expect(200);
    // Both instances are connected before the cut.
    await request(cutOff.app).get('/auth/email/login?user=w&address=w@example.com').expect(200);
    proxy.pause();
    const answered = await request(cutOff.app).get(`/auth/email/login?token=${sent[0]}`);
    expect(answered.status).toBe(503);
    proxy.resume();
    // The held commands reach the server now; none of them may use the token.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await request(other.app).get(`/auth/email/login?token=${sent[0]}`);
    expect([after.status, after.body.error]).toEqual([200, undefined]);
  } finally {
    proxy.resume();
    await cutOff.auth.close();
    await other.auth.close();
  }
}
