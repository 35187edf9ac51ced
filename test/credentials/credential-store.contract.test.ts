import { createCredentialStore, MemoryCredentialStore, type Credential, type CredentialStore } from '../../src';
import { olderMongoRecord, withLegacyLevel, withLegacyMongo, withLegacyPostgres } from '../support/legacy-stores';
import { familyOnEveryDatabase } from '../support/every-store';
import { contractHooks, type Harness } from '../support/contract';
import { describePostgres, sharedServer, startPostgres } from '../support/servers';

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

familyOnEveryDatabase(credentialStoreContract, createCredentialStore);
const postgres = sharedServer(startPostgres);

/** What the stores of before 2026-11-27 wrote, written here as they wrote it: an upgrade must read every credential. */
describe('credentials of the older stores are read after an upgrade', () => {
  const older = [credential('old-user', { created: 300 }), credential('old-user', { created: 100, kind: 'totp' }), credential('other-user')];

  it('level: the cred! and ucred! keys', async () => {
    await withLegacyLevel(
      older.flatMap((c): Array<[string, string]> => [
        [`cred!${c.id}`, JSON.stringify(c)],
        [`ucred!${c.userId}!${c.id}`, ''],
      ]),
      async (uri) => {
        const store = createCredentialStore(uri);
        expect((await store.list('old-user')).map((c) => c.id)).toEqual([older[1]?.id, older[0]?.id]);
        expect(await store.get(older[2]?.id as string)).toEqual(older[2]);
        expect(await store.update(older[0]?.id as string, (c) => ({ ...c, label: 'renamed' }))).toMatchObject({ label: 'renamed' });
        await store.close();
        // Copied once: what changed since is what a restart finds.
        const again = createCredentialStore(uri);
        expect((await again.get(older[0]?.id as string))?.label).toBe('renamed');
        await again.close();
      },
    );
  });

  it('MongoDB: the credentials collection', async () => {
    await withLegacyMongo({ credentials: older.map((c) => olderMongoRecord(c, 'id')) }, async (uri) => {
      const store = createCredentialStore(uri);
      expect((await store.list('old-user')).map((c) => c.id)).toEqual([older[1]?.id, older[0]?.id]);
      expect(await store.get(older[2]?.id as string)).toEqual(older[2]);
      await store.close();
    });
  });

  describePostgres('PostgreSQL', () => {
    it('the authgate_credentials table, and ten instances upgrading at once copy it once', async () => {
      await withLegacyPostgres(
        (await postgres()).url,
        async (sql, schema, applied) => {
          await sql(`CREATE TABLE "${schema}"."authgate_credentials" (id text PRIMARY KEY, user_id text NOT NULL, doc jsonb NOT NULL); CREATE INDEX ON "${schema}"."authgate_credentials" (user_id)`);
          await applied('credentials', 1);
          for (const c of older) await sql(`INSERT INTO "${schema}"."authgate_credentials" (id, user_id, doc) VALUES ($1, $2, $3)`, [c.id, c.userId, JSON.stringify(c)]);
        },
        async (uri, client, schema) => {
          const instances = Array.from({ length: 10 }, () => createCredentialStore(uri));
          const lists = await Promise.all(instances.map((store) => store.list('old-user')));
          for (const list of lists) expect(list.map((c) => c.id)).toEqual([older[1]?.id, older[0]?.id]);
          expect(await instances[3]?.get(older[2]?.id as string)).toEqual(older[2]);
          const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}"."authgate_credentials_doc"`);
          expect(rows[0].n).toBe(3);
          await Promise.all(instances.map((store) => store.close()));
        },
      );
    });
  });
});

describe('createCredentialStore', () => {
  it('makes stores from URIs and refuses others', () => {
    expect(createCredentialStore('memory://')).toBeInstanceOf(MemoryCredentialStore);
    expect(() => createCredentialStore('ftp://x')).toThrow(/unsupported credential store URI/);
  });
});
