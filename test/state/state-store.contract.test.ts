import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthError, createStateStore, MemoryStateStore, type StateStore } from '../../src';
import { LevelStateStore } from '../../src/stores-level';
import { MongoStateStore } from '../../src/stores-mongo';
import { PostgresStateStore } from '../../src/stores-postgres';
import { RedisStateStore } from '../../src/stores-redis';
import { contractHooks, folderHarness, type Harness } from '../support/contract';
import { eventually } from '../support/eventually';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';
import { describeMysql, describePostgres, describeRedis, dropSchema, freshMysqlDatabase, sharedServer, startMysql, startPostgres, startRedis } from '../support/servers';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Who hears a store's `publish`: its own process only, every instance on the same server, or nobody. */
type Delivery = 'local' | 'shared' | 'none';

function stateStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<StateStore>>, delivery: Delivery): void {
  describeFn(`${name} state store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('sets, gets, overwrites and deletes JSON values; missing keys are undefined', async () => {
      expect(await ctx.store.get('missing')).toBeUndefined();
      await ctx.store.set('k', { a: 1, b: ['x'] }, 60_000);
      expect(await ctx.store.get('k')).toEqual({ a: 1, b: ['x'] });
      await ctx.store.set('k', 'second', 60_000);
      expect(await ctx.store.get('k')).toBe('second');
      await ctx.store.delete('k');
      expect(await ctx.store.get('k')).toBeUndefined();
      await ctx.store.delete('never-there');
    });

    it('expires entries after their TTL', async () => {
      await ctx.store.set('short', 1, 40);
      await ctx.store.set('long', 2, 60_000);
      await sleep(80);
      expect(await ctx.store.get('short')).toBeUndefined();
      expect(await ctx.store.take('short')).toBeUndefined();
      expect(await ctx.store.get('long')).toBe(2);
      expect(await ctx.store.setIfAbsent('short', 3, 60_000)).toBe(true);
      expect(await ctx.store.get('short')).toBe(3);
    });

    it('setIfAbsent stores once', async () => {
      expect(await ctx.store.setIfAbsent('once', 'a', 60_000)).toBe(true);
      expect(await ctx.store.setIfAbsent('once', 'b', 60_000)).toBe(false);
      expect(await ctx.store.get('once')).toBe('a');
    });

    it('take is consumed exactly once under 100 concurrent callers', async () => {
      await ctx.store.set('token', { user: 'u1' }, 60_000);
      const results = await Promise.all(Array.from({ length: 100 }, () => ctx.store.take('token')));
      expect(results.filter((r) => r !== undefined)).toEqual([{ user: 'u1' }]);
      expect(await ctx.store.get('token')).toBeUndefined();
    });

    it('setIfAbsent wins exactly once under 100 concurrent callers', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => ctx.store.setIfAbsent('race', i, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await ctx.store.get('race')).toBe(winner);
    });

    it('increments counters atomically under 100 concurrent callers and restarts them after the TTL', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, () => ctx.store.increment('hits', 60_000)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(await ctx.store.get('hits')).toBe(100);
      // A TTL a busy machine cannot outrun between two calls, yet short enough to wait out.
      await ctx.store.increment('short', 1000);
      expect(await ctx.store.increment('short', 1000)).toBe(2);
      await sleep(1100);
      expect(await ctx.store.increment('short', 1000)).toBe(1);
    });

    it('keeps groups of members: set, replaced one by one, listed, expiring on their own, deleted', async () => {
      expect(await ctx.store.members('g')).toEqual([]);
      await ctx.store.setMember('g', 'a', { n: 1 }, 60_000);
      await ctx.store.setMember('g', 'b', { n: 2 }, 1000);
      await ctx.store.setMember('other', 'a', 'x', 60_000);
      await ctx.store.setMember('g', 'a', { n: 3 }, 60_000);
      const sorted = async (group: string): Promise<unknown[]> => (await ctx.store.members(group)).sort((x, y) => x.member.localeCompare(y.member));
      expect(await sorted('g')).toEqual([
        { member: 'a', value: { n: 3 } },
        { member: 'b', value: { n: 2 } },
      ]);
      await sleep(1100);
      expect(await sorted('g')).toEqual([{ member: 'a', value: { n: 3 } }]);
      await ctx.store.deleteMember('g', 'a');
      await ctx.store.deleteMember('g', 'never');
      expect(await ctx.store.members('g')).toEqual([]);
      expect(await ctx.store.members('other')).toEqual([{ member: 'a', value: 'x' }]);
      // A group and a plain key of the same name are apart.
      await ctx.store.set('other', 1, 60_000);
      expect(await ctx.store.members('other')).toHaveLength(1);
      await expect(ctx.store.setMember('g', 'bad\u0000member', 1, 1000)).rejects.toThrow(/NUL/);
    });

    it('adds members of one group from 50 concurrent callers without losing any', async () => {
      await Promise.all(Array.from({ length: 50 }, (_, i) => ctx.store.setMember('crowd', `m${i}`, i, 60_000)));
      expect((await ctx.store.members('crowd')).map((m) => m.value).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it(`publishes to subscribers (${delivery})`, async () => {
      if (delivery === 'none') {
        expect(
          ctx.store.subscribe?.(
            'c',
            () => undefined,
            () => undefined,
          ).live ?? false,
        ).toBe(false);
        return;
      }
      const heard: string[] = [];
      let gaps = 0;
      const subscription = ctx.store.subscribe?.(
        'chan',
        (m) => heard.push(m),
        () => gaps++,
      );
      if (subscription === undefined) throw new Error('no subscribe');
      await eventually(async () => expect(subscription.live).toBe(true), 3000, 10);
      const publisher = delivery === 'shared' ? ctx.harness.open() : ctx.store;
      try {
        await publisher.publish?.('other-chan', 'not for us');
        await publisher.publish?.('chan', 'hello');
        await eventually(async () => expect(heard).toHaveLength(1), 3000, 10);
        expect(heard).toEqual(['hello']);
      } finally {
        await subscription.close();
        if (publisher !== ctx.store) await publisher.close();
      }
      expect(subscription.live).toBe(false);
    });

    it('refuses bad keys, TTLs and values with a clear error', async () => {
      await expect(ctx.store.set('', 1, 1000)).rejects.toThrow(AuthError);
      await expect(ctx.store.set('x'.repeat(513), 1, 1000)).rejects.toThrow(/keys/);
      await expect(ctx.store.set('k', 1, 0)).rejects.toThrow(/TTL/);
      await expect(ctx.store.set('k', 1, Number.NaN)).rejects.toThrow(/TTL/);
      await expect(ctx.store.set('k', undefined, 1000)).rejects.toThrow(/JSON/);
      expect(await ctx.store.get('k')).toBeUndefined();
    });

    it('fails clearly after close', async () => {
      await ctx.store.close();
      await expect(ctx.store.get('k')).rejects.toThrow(/closed/);
      await expect(ctx.store.set('k', 1, 1000)).rejects.toThrow(/closed/);
      ctx.store = ctx.harness.open();
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      await ctx.store.set('keep', 'me', 60_000);
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect(await ctx.store.get('keep')).toBe('me');
      expect(await ctx.store.take('keep')).toBe('me');
    });
  });
}

stateStoreContract('memory', describe, async () => ({ open: () => new MemoryStateStore(), cleanup: async () => undefined, persistent: false }), 'local');

stateStoreContract('level', describe, () => folderHarness('authgate-state-', (dir) => new LevelStateStore(dir)), 'local');

const postgres = sharedServer(startPostgres);
stateStoreContract(
  'postgres',
  describePostgres,
  async () => {
    const server = await postgres();
    const schema = `t_${randomBytes(6).toString('hex')}`;
    return { open: () => new PostgresStateStore(`${server.url}?schema=${schema}`), cleanup: () => dropSchema(server.url, schema), persistent: true };
  },
  'shared',
);

const redis = sharedServer(startRedis);
stateStoreContract(
  'redis',
  describeRedis,
  async () => {
    const server = await redis();
    const prefix = `t${randomBytes(6).toString('hex')}:`;
    return { open: () => new RedisStateStore(`${server.url}?prefix=${prefix}`), cleanup: async () => undefined, persistent: true };
  },
  'shared',
);

stateStoreContract('SQLite', describe, () => folderHarness('authgate-state-', (dir) => createStateStore(`sqlite://${join(dir, 'auth.db')}`)), 'none');

const mariadb = sharedServer(startMysql);
stateStoreContract(
  'MySQL (MariaDB)',
  describeMysql,
  async () => {
    const fresh = await freshMysqlDatabase((await mariadb()).url);
    return { open: () => createStateStore(fresh.uri), cleanup: () => fresh.drop(), persistent: true };
  },
  'none',
);

stateStoreContract(
  'mongo',
  describeMongo,
  async () => {
    const { uri, db } = await freshMongoUri('state');
    return { open: () => new MongoStateStore(uri), cleanup: () => dropMongoDb(db), persistent: true };
  },
  'none',
);

describe('createStateStore and the memory bound', () => {
  it('makes stores from URIs and refuses others clearly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-state-uri-'));
    try {
      expect(createStateStore('memory://')).toBeInstanceOf(MemoryStateStore);
      const level = createStateStore(`level://${dir}`);
      expect(level).toBeInstanceOf(LevelStateStore);
      await level.close();
      const mongo = createStateStore('mongodb://127.0.0.1:1/app?state_coll=tokens');
      expect(mongo).toBeInstanceOf(MongoStateStore);
      await mongo.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(() => createStateStore('ftp://x')).toThrow(/unsupported state store URI.*memory:\/\//);
    expect(() => createStateStore('redis://127.0.0.1:1?prefix=bad prefix')).toThrow(/prefix/);
    expect(() => createStateStore('postgres://127.0.0.1:1/app?schema=Bad-Name')).toThrow(/schema/);
    expect(() => createStateStore('postgres://127.0.0.1:1/app?pool_max=0')).toThrow(/pool_max/);
    expect(() => createStateStore('level://')).toThrow(/folder path/);
    expect(() => createStateStore('level:///tmp/x?y=1')).toThrow(/no query/);
    expect(() => createStateStore('mongodb://127.0.0.1/app?state_coll=bad$name')).toThrow(/state_coll/);
    expect(() => createStateStore('')).toThrow(/unsupported/);
  });

  it('keeps the memory store within its bound', async () => {
    const store = new MemoryStateStore(3);
    for (let i = 0; i < 10; i++) await store.set(`k${i}`, i, 60_000);
    expect(store.size).toBe(3);
    expect(await store.get('k9')).toBe(9);
    expect(await store.get('k0')).toBeUndefined();
  });
});

describe('memory state store bound with groups', () => {
  it('counts group members against the same bound as entries, dropping the oldest', async () => {
    const store = new MemoryStateStore(4);
    await store.set('a', 1, 60_000);
    await store.set('b', 2, 60_000);
    await store.setMember('g1', 'm1', 1, 60_000);
    await store.setMember('g1', 'm2', 2, 60_000);
    expect(store.size).toBe(4);
    await store.setMember('g2', 'm1', 3, 60_000);
    expect(store.size).toBe(4);
    // A whole group goes at once (here the oldest, g1, with two members).
    await store.set('c', 3, 60_000);
    expect(store.size).toBe(3);
    expect(await store.members('g1')).toEqual([]);
    expect(await store.get('c')).toBe(3);
    for (let i = 0; i < 20; i++) await store.setMember(`h${i}`, 'm', i, 60_000);
    expect(store.size).toBeLessThanOrEqual(4);
    expect(await store.members('h19')).toEqual([{ member: 'm', value: 19 }]);
    const before = store.size;
    await store.setMember('h19', 'm', 'again', 60_000);
    expect(store.size).toBe(before);
    await store.deleteMember('h19', 'm');
    expect(store.size).toBe(before - 1);
  });
});
