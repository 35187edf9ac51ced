import { createUserStore, MemoryUserStore, UserDirectory, type UserRecord, type UserStore } from '../../src';
import { olderMongoRecord, withLegacyLevel, withLegacyMongo, withLegacyPostgres } from '../support/legacy-stores';
import { familyOnEveryDatabase } from '../support/every-store';
import { contractHooks, type Harness } from '../support/contract';
import { describePostgres, sharedServer, startPostgres } from '../support/servers';

function user(id: string, name: string, email?: string): UserRecord {
  return { id, name, ...(email ? { email } : {}), logins: [{ provider: 'local', id }], created: 1_000, lastLogin: 1_000, status: 'active' };
}

async function allPages(dir: UserDirectory, query: string | undefined, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await dir.list({ query, cursor, limit });
    ids.push(...page.users.map((u) => u.id));
    if (page.next === undefined) return ids;
    cursor = page.next;
  }
  throw new Error('paging did not end');
}

function userStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<UserStore>>): void {
  describeFn(`${name} user store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('adds once per id, reads, updates (id kept) and deletes', async () => {
      const a = user('u-a', 'Alice', 'alice@example.com');
      expect(await ctx.store.add(a)).toBe(true);
      expect(await ctx.store.add({ ...a, name: 'Mallory' })).toBe(false);
      expect(await ctx.store.get('u-a')).toEqual(a);
      expect(await ctx.store.get('missing')).toBeUndefined();
      const banned = await ctx.store.update('u-a', (u) => ({ ...u, id: 'other', status: 'banned', banReason: 'spam' }));
      expect(banned).toMatchObject({ id: 'u-a', status: 'banned', banReason: 'spam' });
      expect(await ctx.store.get('u-a')).toEqual(banned);
      expect(await ctx.store.get('other')).toBeUndefined();
      expect(await ctx.store.update('u-a', () => undefined)).toEqual(banned);
      expect(await ctx.store.update('missing', (u) => u)).toBeUndefined();
      expect(await ctx.store.delete('u-a')).toBe(true);
      expect(await ctx.store.delete('u-a')).toBe(false);
      expect((await ctx.store.list({ limit: 10 })).users).toEqual([]);
    });

    it('updates atomically: 20 concurrent logins all land', async () => {
      await ctx.store.add(user('u-c', 'Carol'));
      await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.store.update('u-c', (u) => ({ ...u, logins: [...u.logins, { provider: 'p', id: `l${i}` }] }))));
      expect((await ctx.store.get('u-c'))?.logins).toHaveLength(21);
    });

    it('lists every user by id in stable pages, and by name or e-mail prefix once each', async () => {
      const dir = new UserDirectory(ctx.store);
      const people = [
        user('id-05', 'Anna Berg', 'anna@example.com'),
        user('id-01', 'anders', 'zed@example.com'),
        user('id-09', 'Bob', 'andy@example.org'),
        user('id-03', 'Ånne', 'aane@example.com'),
        user('id-07', 'Carl'),
        user('id-02', 'ann', 'ann@example.com'),
      ];
      for (const p of people) await ctx.store.add(p);
      expect(await allPages(dir, undefined, 2)).toEqual(['id-01', 'id-02', 'id-03', 'id-05', 'id-07', 'id-09']);
      // "an", in key order: anders, andy@ (Bob, by e-mail), ann (name and e-mail: listed once), anna berg (both).
      expect(await allPages(dir, 'AN', 1)).toEqual(['id-01', 'id-09', 'id-02', 'id-05']);
      expect(await allPages(dir, ' an', 3)).toEqual(['id-01', 'id-09', 'id-02', 'id-05']);
      expect(await allPages(dir, 'ann', 10)).toEqual(['id-02', 'id-05']);
      expect(await allPages(dir, 'zed@', 10)).toEqual(['id-01']);
      expect(await allPages(dir, 'å', 10)).toEqual(['id-03']);
      expect(await allPages(dir, 'nobody', 10)).toEqual([]);
      // A renamed user moves in the index; its old name no longer finds it.
      await ctx.store.update('id-07', (u) => ({ ...u, name: 'Anton' }));
      expect(await allPages(dir, 'carl', 10)).toEqual([]);
      expect(await allPages(dir, 'anto', 10)).toEqual(['id-07']);
      await ctx.store.delete('id-02');
      expect(await allPages(dir, 'ann', 10)).toEqual(['id-05']);
    });

    it('keeps a page stable while users are added before the cursor', async () => {
      const dir = new UserDirectory(ctx.store);
      for (const id of ['b1', 'b2', 'b3', 'b4']) await ctx.store.add(user(id, `name ${id}`));
      const first = await dir.list({ limit: 2 });
      await ctx.store.add(user('a0', 'name a0'));
      const second = await dir.list({ limit: 2, cursor: first.next });
      expect([...first.users, ...second.users].map((u) => u.id)).toEqual(['b1', 'b2', 'b3', 'b4']);
      expect(second.next).toBeUndefined();
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      const a = user('u-d', 'Dora', 'dora@example.com');
      await ctx.store.add(a);
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect(await ctx.store.get('u-d')).toEqual(a);
      expect((await new UserDirectory(ctx.store).list({ query: 'dor' })).users).toEqual([a]);
    });
  });
}

familyOnEveryDatabase(userStoreContract, createUserStore);
const postgres = sharedServer(startPostgres);

/** What the stores of before 2026-11-27 wrote, written here as they wrote it: after an upgrade every user is found and searchable. */
describe('users of the older stores are read after an upgrade', () => {
  const older = [user('old-1', 'Olga Old', 'olga@example.com'), user('old-2', 'Oscar', 'oscar@example.com'), user('old-3', 'Zoe')];

  it('level: the user! keys', async () => {
    await withLegacyLevel(
      older.map((u): [string, string] => [`user!${u.id}`, JSON.stringify(u)]),
      async (uri) => {
        const store = createUserStore(uri);
        expect(await allPages(new UserDirectory(store), 'o', 1)).toEqual(['old-1', 'old-2']);
        expect(await store.get('old-3')).toEqual(older[2]);
        await store.close();
      },
    );
  });

  it('MongoDB: the users collection', async () => {
    await withLegacyMongo({ users: older.map((u) => olderMongoRecord(u, 'id')) }, async (uri) => {
      const store = createUserStore(uri);
      expect(await allPages(new UserDirectory(store), 'o', 1)).toEqual(['old-1', 'old-2']);
      expect(await store.get('old-3')).toEqual(older[2]);
      await store.close();
    });
  });

  describePostgres('PostgreSQL', () => {
    it('the authgate_users table (its search index rebuilt)', async () => {
      await withLegacyPostgres(
        (await postgres()).url,
        async (sql, schema) => {
          await sql(`CREATE TABLE "${schema}"."authgate_users" (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL)`);
          for (const u of older) await sql(`INSERT INTO "${schema}"."authgate_users" (id, doc) VALUES ($1, $2)`, [u.id, JSON.stringify(u)]);
        },
        async (uri) => {
          const store = createUserStore(uri);
          const dir = new UserDirectory(store);
          expect(await allPages(dir, 'oscar@', 5)).toEqual(['old-2']);
          expect(await allPages(dir, undefined, 2)).toEqual(['old-1', 'old-2', 'old-3']);
          await store.close();
        },
      );
    });
  });
});

describe('user directory', () => {
  it('records logins: creates, refreshes name, e-mail (canonical) and picture, adds new logins once', async () => {
    const dir = new UserDirectory(new MemoryUserStore());
    const first = await dir.recordLogin({ id: 'u1', name: 'Al', picture: '', email: ' Al@Example.COM ' }, { provider: 'github', id: 'u1' }, 5_000);
    expect(first).toEqual({ id: 'u1', name: 'Al', email: 'al@example.com', logins: [{ provider: 'github', id: 'u1' }], created: 5_000, lastLogin: 5_000, status: 'active' });
    const again = await dir.recordLogin({ id: 'u1', name: 'Albert', picture: 'http://x/a.png' }, { provider: 'google', id: 'google_1' }, 6_000);
    expect(again).toMatchObject({ name: 'Albert', email: 'al@example.com', picture: 'http://x/a.png', created: 5_000, lastLogin: 6_000 });
    await dir.recordLogin({ id: 'u1', name: 'Albert', picture: '' }, { provider: 'google', id: 'google_1' }, 7_000);
    expect((await dir.get('u1'))?.logins).toEqual([
      { provider: 'github', id: 'u1' },
      { provider: 'google', id: 'google_1' },
    ]);
    expect((await dir.get('u1'))?.picture).toBe('http://x/a.png');
  });

  it('refuses bad pages with bad_request', async () => {
    const dir = new UserDirectory(new MemoryUserStore());
    await expect(dir.list({ limit: 0 })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(dir.list({ limit: 101 })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(dir.list({ cursor: 'not a cursor' })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(dir.list({ cursor: Buffer.from('{"a":1}').toString('base64url') })).rejects.toMatchObject({ code: 'bad_request' });
    await expect(dir.list({ query: 'x'.repeat(257) })).rejects.toMatchObject({ code: 'bad_request' });
    const { next } = await (async () => {
      await dir.recordLogin({ id: 'a', name: 'a', picture: '' }, { provider: 'p', id: 'a' });
      await dir.recordLogin({ id: 'b', name: 'b', picture: '' }, { provider: 'p', id: 'b' });
      return dir.list({ limit: 1 });
    })();
    await expect(dir.list({ query: 'a', cursor: next })).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('createUserStore makes stores from URIs and refuses others', () => {
    expect(createUserStore('memory://')).toBeInstanceOf(MemoryUserStore);
    expect(() => createUserStore('ftp://x')).toThrow(/unsupported user store URI/);
  });
});
