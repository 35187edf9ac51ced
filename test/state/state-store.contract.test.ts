import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthError, createStateStore, LevelStateStore, MemoryStateStore, MongoStateStore, type StateStore } from '../../src';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Harness {
  open(): StateStore;
  cleanup(): Promise<void>;
  persistent: boolean;
}

function stateStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness>): void {
  describeFn(`${name} state store (contract)`, () => {
    let harness: Harness;
    let store: StateStore;
    beforeEach(async () => {
      harness = await makeHarness();
      store = harness.open();
    });
    afterEach(async () => {
      await store.close();
      await harness.cleanup();
    });

    it('sets, gets, overwrites and deletes JSON values; missing keys are undefined', async () => {
      expect(await store.get('missing')).toBeUndefined();
      await store.set('k', { a: 1, b: ['x'] }, 60_000);
      expect(await store.get('k')).toEqual({ a: 1, b: ['x'] });
      await store.set('k', 'second', 60_000);
      expect(await store.get('k')).toBe('second');
      await store.delete('k');
      expect(await store.get('k')).toBeUndefined();
      await store.delete('never-there');
    });

    it('expires entries after their TTL', async () => {
      await store.set('short', 1, 40);
      await store.set('long', 2, 60_000);
      await sleep(80);
      expect(await store.get('short')).toBeUndefined();
      expect(await store.take('short')).toBeUndefined();
      expect(await store.get('long')).toBe(2);
      expect(await store.setIfAbsent('short', 3, 60_000)).toBe(true);
      expect(await store.get('short')).toBe(3);
    });

    it('setIfAbsent stores once', async () => {
      expect(await store.setIfAbsent('once', 'a', 60_000)).toBe(true);
      expect(await store.setIfAbsent('once', 'b', 60_000)).toBe(false);
      expect(await store.get('once')).toBe('a');
    });

    it('take is consumed exactly once under 100 concurrent callers', async () => {
      await store.set('token', { user: 'u1' }, 60_000);
      const results = await Promise.all(Array.from({ length: 100 }, () => store.take('token')));
      expect(results.filter((r) => r !== undefined)).toEqual([{ user: 'u1' }]);
      expect(await store.get('token')).toBeUndefined();
    });

    it('setIfAbsent wins exactly once under 100 concurrent callers', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.setIfAbsent('race', i, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await store.get('race')).toBe(winner);
    });

    it('increments counters atomically under 100 concurrent callers and restarts them after the TTL', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, () => store.increment('hits', 60_000)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(await store.get('hits')).toBe(100);
      await store.increment('short', 40);
      expect(await store.increment('short', 40)).toBe(2);
      await sleep(80);
      expect(await store.increment('short', 40)).toBe(1);
    });

    it('refuses bad keys, TTLs and values with a clear error', async () => {
      await expect(store.set('', 1, 1000)).rejects.toThrow(AuthError);
      await expect(store.set('x'.repeat(513), 1, 1000)).rejects.toThrow(/keys/);
      await expect(store.set('k', 1, 0)).rejects.toThrow(/TTL/);
      await expect(store.set('k', 1, Number.NaN)).rejects.toThrow(/TTL/);
      await expect(store.set('k', undefined, 1000)).rejects.toThrow(/JSON/);
      expect(await store.get('k')).toBeUndefined();
    });

    it('fails clearly after close', async () => {
      await store.close();
      await expect(store.get('k')).rejects.toThrow(/closed/);
      await expect(store.set('k', 1, 1000)).rejects.toThrow(/closed/);
      store = harness.open();
    });

    it('survives a restart when persistent', async () => {
      if (!harness.persistent) return;
      await store.set('keep', 'me', 60_000);
      await store.close();
      store = harness.open();
      expect(await store.get('keep')).toBe('me');
      expect(await store.take('keep')).toBe('me');
    });
  });
}

stateStoreContract('memory', describe, async () => ({ open: () => new MemoryStateStore(), cleanup: async () => undefined, persistent: false }));

stateStoreContract('level', describe, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-state-'));
  return { open: () => new LevelStateStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }), persistent: true };
});

stateStoreContract('mongo', describeMongo, async () => {
  const { uri, db } = freshMongoUri('state');
  return { open: () => new MongoStateStore(uri), cleanup: () => dropMongoDb(db), persistent: true };
});

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
    expect(() => createStateStore('redis://x')).toThrow(/unsupported state store URI.*memory:\/\//);
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
