import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStateStore, MemoryStateStore, type StateStore } from '../../src';
import { LevelStateStore } from '../../src/stores-level';
import { MongoStateStore } from '../../src/stores-mongo';
import { RedisStateStore } from '../../src/stores-redis';
import { familyOnEveryDatabase } from '../support/every-store';
import { stateStoreContract } from '../support/state-store-contract';
import { describeRedis, sharedServer, startRedis } from '../support/servers';

/** What each database's state store announces to the caches of other instances (see the contract). */
const ANNOUNCES: Readonly<Record<string, 'local' | 'shared' | 'none'>> = { memory: 'local', level: 'local', postgres: 'shared', SQLite: 'none', 'MySQL (MariaDB)': 'none', mongo: 'none' };
familyOnEveryDatabase<StateStore>(
  (name, describeFn, makeHarness) => stateStoreContract(name, describeFn, makeHarness, ANNOUNCES[name]!),
  (uri) => createStateStore(uri),
);

// Redis holds the state store only: it has no database of the other families.
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
