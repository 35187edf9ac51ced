import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { avatarIdFor, createAvatarStore, FileAvatarStore, MemoryAvatarStore, migrateAvatars, type AvatarStore } from '../../src';
import { LevelAvatarStore } from '../../src/stores-level';
import { MongoAvatarStore } from '../../src/stores-mongo';
import { KeyValueAvatarStore, MapKeyValueClient } from '../../examples/custom-avatar-store';
import { familyOnEveryDatabase } from '../support/every-store';
import { contractHooks, folderHarness, type Harness } from '../support/contract';

const png = (n: number): Buffer => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(n, n % 251)]);

function avatarStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<AvatarStore>>): void {
  describeFn(`${name} avatar store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('puts, gets, lists, fingerprints and removes', async () => {
      const id = await ctx.store.put('user1', png(10));
      expect(id).toBe(avatarIdFor('user1'));
      expect((await ctx.store.get(id))?.equals(png(10))).toBe(true);
      const f1 = await ctx.store.id(id);
      expect(f1).toBeTruthy();
      await new Promise((r) => setTimeout(r, 5));
      await ctx.store.put('user1', png(20));
      expect((await ctx.store.get(id))?.equals(png(20))).toBe(true);
      expect(await ctx.store.id(id)).not.toBe(f1);
      await ctx.store.put('user2', png(5));
      expect(await ctx.store.list()).toEqual([avatarIdFor('user1'), avatarIdFor('user2')].sort());
      await ctx.store.remove(id);
      expect(await ctx.store.get(id)).toBeUndefined();
      expect(await ctx.store.id(id)).toBeUndefined();
      await ctx.store.remove(id);
      expect(await ctx.store.list()).toEqual([avatarIdFor('user2')]);
    });

    it('answers undefined for missing ids and refuses ids outside the avatar id shape', async () => {
      expect(await ctx.store.get(avatarIdFor('nobody'))).toBeUndefined();
      expect(await ctx.store.id(avatarIdFor('nobody'))).toBeUndefined();
      await ctx.store.put('user1', png(3));
      for (const bad of ['../../etc/passwd', `${'a'.repeat(40)}.image/../x`, '', `${'A'.repeat(40)}.image`]) {
        expect(await ctx.store.get(bad)).toBeUndefined();
        expect(await ctx.store.id(bad)).toBeUndefined();
      }
      await expect(ctx.store.put('', png(1))).rejects.toThrow(/empty user id/);
      await expect(ctx.store.put('u', Buffer.alloc(0))).rejects.toThrow(/empty avatar/);
    });

    it('keeps one whole avatar after 20 concurrent puts', async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.store.put('racer', png(1000 + i))));
      const data = await ctx.store.get(avatarIdFor('racer'));
      expect(Array.from({ length: 20 }, (_, i) => png(1000 + i)).some((b) => b.equals(data!))).toBe(true);
      expect(await ctx.store.list()).toEqual([avatarIdFor('racer')]);
      if (ctx.harness.dir && name === 'file') {
        const shard = avatarIdFor('racer').slice(0, 2);
        expect((await readdir(join(ctx.harness.dir, shard))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      }
    });

    it('fails clearly after close', async () => {
      await ctx.store.close();
      await expect(ctx.store.put('u', png(1))).rejects.toThrow(/closed/);
      await expect(ctx.store.get(avatarIdFor('u'))).rejects.toThrow(/closed/);
      await expect(ctx.store.list()).rejects.toThrow(/closed/);
      ctx.store = ctx.harness.open();
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      await ctx.store.put('keep', png(7));
      const print = await ctx.store.id(avatarIdFor('keep'));
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect((await ctx.store.get(avatarIdFor('keep')))?.equals(png(7))).toBe(true);
      expect(await ctx.store.id(avatarIdFor('keep'))).toBe(print);
    });
  });
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'authgate-ava-'));
}

familyOnEveryDatabase(avatarStoreContract, createAvatarStore);
avatarStoreContract('file', describe, () => folderHarness('authgate-ava-', (dir) => new FileAvatarStore(dir)));
avatarStoreContract('custom (examples/custom-avatar-store.ts)', describe, async () => ({
  open: () => new KeyValueAvatarStore(new MapKeyValueClient()),
  cleanup: async () => undefined,
  persistent: false,
}));

describe('migrateAvatars', () => {
  it('copies every avatar keeping ids, and reports failures without stopping', async () => {
    const dir = await tempDir();
    const src = new MemoryAvatarStore();
    const dst = new LevelAvatarStore(dir);
    try {
      for (const u of ['a', 'b', 'c']) await src.put(u, png(u.charCodeAt(0)));
      const progress: number[] = [];
      const result = await migrateAvatars(dst, src, (done) => progress.push(done));
      expect(result).toEqual({ copied: 3, failed: [] });
      expect(progress).toEqual([1, 2, 3]);
      expect(await dst.list()).toEqual(await src.list());
      expect((await dst.get(avatarIdFor('b')))?.equals(png(98))).toBe(true);
      const broken: AvatarStore = { ...src, list: async () => [...(await src.list()), avatarIdFor('ghost')], get: (id) => src.get(id) } as AvatarStore;
      const again = await migrateAvatars(new MemoryAvatarStore(), broken);
      expect(again.copied).toBe(3);
      expect(again.failed).toEqual([{ avatarId: avatarIdFor('ghost'), error: 'vanished from the source' }]);
    } finally {
      await dst.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('createAvatarStore', () => {
  it('makes stores from URIs and plain paths', async () => {
    const dir = await tempDir();
    const level = createAvatarStore(`level://${dir}`);
    expect(level).toBeInstanceOf(LevelAvatarStore);
    await level.close();
    await rm(dir, { recursive: true, force: true });
    const mongo = createAvatarStore('mongodb://127.0.0.1:1/app?ava_db=pics&ava_coll=ava');
    expect(mongo).toBeInstanceOf(MongoAvatarStore);
    await mongo.close();
    expect(createAvatarStore('memory://')).toBeInstanceOf(MemoryAvatarStore);
    expect(createAvatarStore('file:///tmp/authgate-x')).toBeInstanceOf(FileAvatarStore);
    expect(createAvatarStore('./var/avatars')).toBeInstanceOf(FileAvatarStore);
    expect(await createAvatarStore('noop://').put('u', png(1))).toBe('');
  });

  it('refuses unknown schemes and missing paths with a message naming the accepted ones', () => {
    expect(() => createAvatarStore('redis://x')).toThrow(/unknown avatar store scheme "redis:".*file:\/\//);
    expect(() => createAvatarStore('file://')).toThrow(/needs a folder path/);
    expect(() => createAvatarStore('level://')).toThrow(/needs a folder path/);
    expect(() => createAvatarStore('mongodb://127.0.0.1/app?ava_coll=../x')).toThrow(/ava_coll/);
    expect(() => createAvatarStore('mongodb:///nohost')).toThrow(/mongodb/);
    expect(() => createAvatarStore('')).toThrow(/empty/);
  });

  it('evicts the oldest avatars past the memory bound', async () => {
    const store = new MemoryAvatarStore(25);
    await store.put('a', png(10));
    await store.put('b', png(10));
    expect(await store.list()).toHaveLength(1);
    expect(await store.get(avatarIdFor('b'))).toBeDefined();
  });
});

describe('file store fingerprints across processes', () => {
  it("sees another instance's change of the same folder within a second", async () => {
    const dir = await tempDir();
    const a = new FileAvatarStore(dir);
    const b = new FileAvatarStore(dir);
    try {
      const id = await a.put('shared', png(10));
      const before = await b.id(id);
      await new Promise((r) => setTimeout(r, 5));
      await a.put('shared', png(20));
      expect(await a.id(id)).not.toBe(before);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await b.id(id)).toBe(await a.id(id));
      await a.remove(id);
      expect(await a.id(id)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
