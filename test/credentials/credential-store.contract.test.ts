import { randomBytes } from 'node:crypto';
import { createCredentialStore, MemoryCredentialStore, type Credential, type CredentialStore } from '../../src';
import { LevelCredentialStore } from '../../src/stores/level';
import { MongoCredentialStore } from '../../src/stores/mongo';
import { PostgresCredentialStore } from '../../src/stores/postgres';
import { contractHooks, folderHarness, type Harness } from '../support/contract';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';

let counter = 0;
function credential(userId: string, extra: Partial<Credential> = {}): Credential {
  counter++;
  return { id: `cred-${counter}`, userId, kind: 'passkey', label: `key ${counter}`, created: 1_000 + counter, lastUsed: 0, data: { counter: 0, publicKey: 'pk' }, ...extra };
}

function credentialStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<CredentialStore>>): void {
  describeFn(`${name} credential store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('adds once per id, reads, lists a user oldest first, and deletes', async () => {
      const later = credential('user-a', { created: 5_000 });
      const first = credential('user-a', { created: 2_000, kind: 'totp' });
      const other = credential('user-b');
      expect(await ctx.store.add(later)).toBe(true);
      expect(await ctx.store.add(first)).toBe(true);
      expect(await ctx.store.add(other)).toBe(true);
      expect(await ctx.store.add({ ...later, userId: 'user-b', label: 'thief' })).toBe(false);
      expect(await ctx.store.get(later.id)).toEqual(later);
      expect(await ctx.store.get('missing')).toBeUndefined();
      expect((await ctx.store.list('user-a')).map((c) => c.id)).toEqual([first.id, later.id]);
      expect(await ctx.store.list('nobody')).toEqual([]);
      expect(await ctx.store.delete(first.id)).toBe(true);
      expect(await ctx.store.delete(first.id)).toBe(false);
      expect((await ctx.store.list('user-a')).map((c) => c.id)).toEqual([later.id]);
      expect(await ctx.store.get(other.id)).toEqual(other);
    });

    it('updates atomically: 20 concurrent counter increments all count, id and user stay, undefined changes nothing', async () => {
      const c = credential('user-c');
      await ctx.store.add(c);
      await Promise.all(Array.from({ length: 20 }, () => ctx.store.update(c.id, (x) => ({ ...x, data: { ...x.data, counter: (x.data.counter as number) + 1 } }))));
      expect((await ctx.store.get(c.id))?.data.counter).toBe(20);
      const moved = await ctx.store.update(c.id, (x) => ({ ...x, id: 'other', userId: 'mallory', label: 'renamed' }));
      expect(moved).toMatchObject({ id: c.id, userId: 'user-c', label: 'renamed' });
      expect(await ctx.store.update(c.id, () => undefined)).toMatchObject({ label: 'renamed' });
      expect(await ctx.store.update('missing', (x) => x)).toBeUndefined();
      expect(await ctx.store.list('mallory')).toEqual([]);
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      const c = credential('user-d');
      await ctx.store.add(c);
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect(await ctx.store.list('user-d')).toEqual([c]);
    });
  });
}

credentialStoreContract('memory', describe, async () => ({ open: () => new MemoryCredentialStore(), cleanup: async () => undefined, persistent: false }));
credentialStoreContract('level', describe, () => folderHarness('authgate-credentials-', (dir) => new LevelCredentialStore(dir)));
const postgres = sharedServer(startPostgres);
credentialStoreContract('postgres', describePostgres, async () => {
  const server = await postgres();
  const schema = `c_${randomBytes(6).toString('hex')}`;
  return { open: () => new PostgresCredentialStore(`${server.url}?schema=${schema}`), cleanup: () => dropSchema(server.url, schema), persistent: true };
});
credentialStoreContract('mongo', describeMongo, async () => {
  const { uri, db } = freshMongoUri('cred');
  return { open: () => new MongoCredentialStore(uri), cleanup: () => dropMongoDb(db), persistent: true };
});

describe('createCredentialStore', () => {
  it('makes stores from URIs and refuses others', () => {
    expect(createCredentialStore('memory://')).toBeInstanceOf(MemoryCredentialStore);
    expect(() => createCredentialStore('ftp://x')).toThrow(/unsupported credential store URI/);
  });
});
