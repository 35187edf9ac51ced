import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { avatarIdFor, createAvatarStore, FileAvatarStore, MemoryAvatarStore, type AvatarStore } from '../../src';

const png = (n: number): Buffer => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(n, n % 251)]);

describe.each([
  ['memory', async () => ({ store: new MemoryAvatarStore() as AvatarStore, reopen: undefined as (() => AvatarStore) | undefined })],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'authgate-ava-'));
      return { store: new FileAvatarStore(dir) as AvatarStore, reopen: () => new FileAvatarStore(dir) as AvatarStore, dir };
    },
  ],
])('%s avatar store', (_name, make) => {
  let store: AvatarStore;
  let reopen: (() => AvatarStore) | undefined;
  let dir: string | undefined;
  beforeEach(async () => {
    ({ store, reopen, dir } = (await make()) as { store: AvatarStore; reopen?: () => AvatarStore; dir?: string });
  });
  afterEach(async () => {
    await store.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('puts, gets, lists, fingerprints and removes', async () => {
    const id = await store.put('user1', png(10));
    expect(id).toBe(avatarIdFor('user1'));
    expect((await store.get(id))?.equals(png(10))).toBe(true);
    const f1 = await store.id(id);
    expect(f1).toBeTruthy();
    await new Promise((r) => setTimeout(r, 5));
    await store.put('user1', png(20));
    expect((await store.get(id))?.equals(png(20))).toBe(true);
    expect(await store.id(id)).not.toBe(f1);
    await store.put('user2', png(5));
    expect(await store.list()).toEqual([avatarIdFor('user1'), avatarIdFor('user2')].sort());
    await store.remove(id);
    expect(await store.get(id)).toBeUndefined();
    expect(await store.id(id)).toBeUndefined();
    await store.remove(id);
    expect(await store.list()).toEqual([avatarIdFor('user2')]);
  });

  it('refuses ids outside the avatar id shape and empty input', async () => {
    await store.put('user1', png(3));
    for (const bad of ['../../etc/passwd', `${'a'.repeat(40)}.image/../x`, '', 'A'.repeat(40) + '.image']) {
      expect(await store.get(bad)).toBeUndefined();
      expect(await store.id(bad)).toBeUndefined();
    }
    await expect(store.put('', png(1))).rejects.toThrow(/empty user id/);
    await expect(store.put('u', Buffer.alloc(0))).rejects.toThrow(/empty avatar/);
  });

  it('keeps the last of concurrent puts whole', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.put('racer', png(1000 + i))));
    const data = await store.get(avatarIdFor('racer'));
    expect(Array.from({ length: 20 }, (_, i) => png(1000 + i)).some((b) => b.equals(data!))).toBe(true);
    if (dir) {
      const shard = avatarIdFor('racer').slice(0, 2);
      expect((await readdir(join(dir, shard))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    }
  });

  it('fails clearly after close', async () => {
    await store.close();
    await expect(store.put('u', png(1))).rejects.toThrow(/closed/);
    await expect(store.get(avatarIdFor('u'))).rejects.toThrow(/closed/);
    await expect(store.list()).rejects.toThrow(/closed/);
  });

  it('survives a restart when persistent', async () => {
    if (!reopen) return;
    await store.put('keep', png(7));
    await store.close();
    store = reopen();
    expect((await store.get(avatarIdFor('keep')))?.equals(png(7))).toBe(true);
  });
});

describe('createAvatarStore', () => {
  it('makes stores from URIs and plain paths', async () => {
    expect(createAvatarStore('memory://')).toBeInstanceOf(MemoryAvatarStore);
    expect(createAvatarStore('file:///tmp/authgate-x')).toBeInstanceOf(FileAvatarStore);
    expect(createAvatarStore('./var/avatars')).toBeInstanceOf(FileAvatarStore);
    expect(await createAvatarStore('noop://').put('u', png(1))).toBe('');
  });

  it('refuses unknown schemes and missing paths with a message naming the accepted ones', () => {
    expect(() => createAvatarStore('redis://x')).toThrow(/unknown avatar store scheme "redis:".*file:\/\//);
    expect(() => createAvatarStore('file://')).toThrow(/needs a folder path/);
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
