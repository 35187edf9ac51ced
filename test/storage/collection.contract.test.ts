import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BY_ID, UniqueTakenError, type Collection, type Schema } from '../../src/core/storage/collection';
import type { Database } from '../../src/core/storage/database';
import { LevelDatabase } from '../../src/stores/level/level-database';
import { MemoryDatabase } from '../../src/stores/memory/memory-database';
import { MysqlDatabase } from '../../src/stores/mysql/mysql-database';
import { PostgresDatabase } from '../../src/stores/postgres/postgres-database';
import { SqliteDatabase } from '../../src/stores/sqlite/sqlite-database';
import { describeBetterSqlite, describeMysql, describePostgres, dropSchema, freshMysqlDatabase, sharedServer, startMysql, startPostgres } from '../support/servers';
import { MongoDatabase } from '../../src/stores/mongo/mongo-database';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';

/** A document of the test family: a person with an e-mail (unique), tags (many values), and things by owner and time. */
interface Person {
  id: string;
  email: string;
  tags: string[];
  owner: string;
  at: number;
  n: number;
  expires?: number;
  note?: string;
}

const PEOPLE: Schema<Person> = {
  family: 'people',
  id: (p) => p.id,
  indexes: [
    { name: 'email', values: (p) => [p.email], unique: true },
    { name: 'tag', values: (p) => p.tags },
    // "an owner's things, oldest first": the owner, then the time as fixed-width text.
    { name: 'owned', values: (p) => [`${p.owner}\u0000${String(p.at).padStart(15, '0')}`] },
  ],
  expiresAt: (p) => p.expires,
};

let seq = 0;
const person = (extra: Partial<Person> = {}): Person => {
  seq++;
  return { id: `p${String(seq).padStart(4, '0')}`, email: `p${seq}@example.com`, tags: [], owner: 'nobody', at: seq, n: 0, ...extra };
};

/** How the suite opens one adapter: a fresh database per test, the same one again for a second instance. */
interface AdapterHarness {
  open(): Database;
  cleanup(): Promise<void>;
}

function collectionContract(name: string, describeFn: jest.Describe, harness: () => Promise<AdapterHarness>): void {
  describeFn(`${name} adapter: the collection contract every store family is written against`, () => {
    let h: AdapterHarness;
    let db: Database;
    let people: Collection<Person>;
    beforeEach(async () => {
      h = await harness();
      db = h.open();
      people = db.collection(PEOPLE);
    });
    afterEach(async () => {
      await db.close();
      await h.cleanup();
    });

    it('inserts once per id, reads back a JSON copy, deletes once', async () => {
      const ann = person({ note: 'a' });
      expect(await people.insert(ann)).toEqual({ inserted: true });
      expect(await people.insert({ ...ann, email: 'other@example.com' })).toEqual({ inserted: false, taken: 'id' });
      const read = (await people.get(ann.id)) as Person;
      expect(read).toEqual(ann);
      read.note = 'changed by the caller';
      ann.note = 'changed too';
      expect((await people.get(ann.id))?.note).toBe('a');
      expect(await people.get('missing')).toBeUndefined();
      expect(await people.delete(ann.id)).toMatchObject({ id: ann.id, note: 'a' });
      expect(await people.delete(ann.id)).toBeUndefined();
      expect(await people.get(ann.id)).toBeUndefined();
      expect(await people.insert(ann)).toEqual({ inserted: true });
    });

    it('a unique value has one holder: insert and update refuse a taken one; an update or a delete frees it', async () => {
      const a = person({ email: 'same@example.com' });
      const b = person();
      expect(await people.insert(a)).toEqual({ inserted: true });
      expect(await people.insert({ ...person(), email: 'same@example.com' })).toEqual({ inserted: false, taken: 'email' });
      expect(await people.insert(b)).toEqual({ inserted: true });
      await expect(people.update(b.id, (p) => ({ ...p, email: 'same@example.com' }))).rejects.toBeInstanceOf(UniqueTakenError);
      expect((await people.get(b.id))?.email).toBe(b.email);
      expect((await people.find('email', { prefix: 'same@', limit: 10 })).docs.map((p) => p.id)).toEqual([a.id]);
      // An update that keeps its own value is no conflict; one that moves frees the old value.
      expect((await people.update(a.id, (p) => ({ ...p, n: 1 })))?.n).toBe(1);
      await people.update(a.id, (p) => ({ ...p, email: 'moved@example.com' }));
      expect((await people.update(b.id, (p) => ({ ...p, email: 'same@example.com' })))?.email).toBe('same@example.com');
      await people.delete(b.id);
      expect(await people.insert({ ...person(), email: 'same@example.com' })).toEqual({ inserted: true });
    });

    it('updates: what is stored after; undefined leaves it; a missing id gives undefined; the id cannot change', async () => {
      const p = person();
      await people.insert(p);
      expect(await people.update(p.id, (d) => ({ ...d, n: 5 }))).toEqual({ ...p, n: 5 });
      expect(await people.update(p.id, () => undefined)).toEqual({ ...p, n: 5 });
      expect(await people.update('missing', (d) => d)).toBeUndefined();
      await expect(people.update(p.id, (d) => ({ ...d, id: 'other' }))).rejects.toThrow(/changed the id/);
      expect(await people.get(p.id)).toEqual({ ...p, n: 5 });
    });

    it.each([20, 100])('%i concurrent updates of one document, from two instances, all land', async (count) => {
      const p = person();
      await people.insert(p);
      const second = h.open();
      const other = second.collection(PEOPLE);
      try {
        await Promise.all(Array.from({ length: count }, (_, i) => (i % 2 === 0 ? people : other).update(p.id, (d) => ({ ...d, n: d.n + 1 }))));
        expect((await people.get(p.id))?.n).toBe(count);
      } finally {
        if (second !== db) await second.close();
      }
    });

    it('of racing deletes of one document, one gets it; racing inserts of one unique value, one wins', async () => {
      const p = person();
      await people.insert(p);
      const deleted = await Promise.all(Array.from({ length: 5 }, () => people.delete(p.id)));
      expect(deleted.filter((d) => d !== undefined)).toHaveLength(1);
      const racers = Array.from({ length: 6 }, () => person({ email: 'race@example.com' }));
      const results = await Promise.all(racers.map((r) => people.insert(r)));
      expect(results.filter((r) => r.inserted)).toHaveLength(1);
      expect(results.filter((r) => !r.inserted).map((r) => (r.inserted ? '' : r.taken))).toEqual(Array(5).fill('email'));
    });

    it('finds and counts by prefix in (value, id) order, a document once per value, page by page with a cursor', async () => {
      const docs = [
        person({ tags: ['red', 'round'] }),
        person({ tags: ['red'] }),
        person({ tags: ['blue', 'red', 'red'] }),
        person({ tags: ['rose'] }),
        person({ tags: [] }),
        person({ tags: ['r\u0000x', 'r'] }),
      ];
      for (const d of [...docs].reverse()) await people.insert(d);
      const ids = (page: { docs: Person[] }): string[] => page.docs.map((d) => d.id);
      const [d0, d1, d2, d3, , d5] = docs.map((d) => d.id);
      // r < r\0x < red (d0, d1, d2 by id) < rose < round
      expect(ids(await people.find('tag', { prefix: 'r', limit: 100 }))).toEqual([d5, d5, d0, d1, d2, d3, d0]);
      expect((await people.find('tag', { prefix: 'r', limit: 100 })).values).toEqual(['r', 'r\u0000x', 'red', 'red', 'red', 'rose', 'round']);
      expect(ids(await people.find('tag', { prefix: 're', limit: 100 }))).toEqual([d0, d1, d2]);
      expect(ids(await people.find('tag', { prefix: 'red', limit: 100 }))).toEqual([d0, d1, d2]);
      expect(ids(await people.find('tag', { prefix: 'reds', limit: 100 }))).toEqual([]);
      expect(ids(await people.find('tag', { prefix: '', limit: 100 }))).toEqual([d2, d5, d5, d0, d1, d2, d3, d0]);
      const seen: string[] = [];
      let after: string | undefined;
      do {
        const page = await people.find('tag', { prefix: 'r', limit: 2, after });
        expect(page.docs.length).toBeLessThanOrEqual(2);
        seen.push(...ids(page));
        after = page.next;
      } while (after !== undefined);
      expect(seen).toEqual([d5, d5, d0, d1, d2, d3, d0]);
      expect((await people.find('tag', { prefix: 'rose', limit: 1 })).next).toBeUndefined();
      // A count agrees with the lookup: a document once per distinct value, none past the prefix.
      expect([await people.count('tag', 'r'), await people.count('tag', 'red'), await people.count('tag', 'reds'), await people.count('tag', '')]).toEqual([7, 3, 0, 8]);
      await expect(people.find('tag', { prefix: '', limit: 1, after: 'not a cursor!' })).rejects.toMatchObject({ status: 400 });
      await expect(people.find('nope', { prefix: '', limit: 1 })).rejects.toThrow(/no index nope/);
      await expect(people.count('nope', '')).rejects.toThrow(/no index nope/);
    });

    it("a composite value gives an owner's documents oldest first, and nobody else's", async () => {
      const late = person({ owner: 'u1', at: 300 });
      const early = person({ owner: 'u1', at: 100 });
      const prefixOwner = person({ owner: 'u10', at: 50 });
      for (const d of [late, prefixOwner, early]) await people.insert(d);
      expect((await people.find('owned', { prefix: 'u1\u0000', limit: 10 })).docs.map((d) => d.id)).toEqual([early.id, late.id]);
    });

    it('an expired document is gone for reads, lookups and unique values; its id can be used again', async () => {
      const gone = person({ email: 'old@example.com', tags: ['t'], expires: Date.now() - 1 });
      const soon = person({ tags: ['t'], expires: Date.now() + 60_000 });
      await people.insert(gone);
      await people.insert(soon);
      expect(await people.get(gone.id)).toBeUndefined();
      expect(await people.update(gone.id, (d) => d)).toBeUndefined();
      expect((await people.find('tag', { prefix: 't', limit: 10 })).docs.map((d) => d.id)).toEqual([soon.id]);
      expect(await people.count('tag', 't')).toBe(1);
      expect(await people.insert({ ...person(), email: 'old@example.com' })).toEqual({ inserted: true });
      expect(await people.insert({ ...gone, email: 'again@example.com', expires: undefined })).toEqual({ inserted: true });
      expect(await people.get(gone.id)).toMatchObject({ id: gone.id });
    });

    it('a family with no unique value and no expiry (written in one statement where the database can) inserts once per id, with its entries', async () => {
      const plain = db.collection<Person>({ family: 'plain', id: (p) => p.id, indexes: [{ name: 'tag', values: (p) => p.tags }] });
      const a = person({ tags: ['x', 'y'] });
      expect(await plain.insert(a)).toEqual({ inserted: true });
      expect(await plain.insert({ ...a, tags: ['z'] })).toEqual({ inserted: false, taken: 'id' });
      expect(await plain.insert(person())).toEqual({ inserted: true });
      expect((await plain.find('tag', { prefix: '', limit: 10 })).values).toEqual(['x', 'y']);
      expect(await plain.get(a.id)).toEqual(a);
    });

    it('every family lists and counts in id order by BY_ID, with no index of its own: by prefix, page by page, expired ones left out', async () => {
      const ids = ['b2', 'a1', 'b1', 'c', 'b3'];
      for (const id of ids) await people.insert(person({ id, expires: id === 'b3' ? Date.now() - 1 : undefined }));
      const seen: string[] = [];
      let after: string | undefined;
      do {
        const page = await people.find(BY_ID, { prefix: '', limit: 2, after });
        expect(page.values).toEqual(page.docs.map((d) => d.id));
        seen.push(...page.docs.map((d) => d.id));
        after = page.next;
      } while (after !== undefined);
      expect(seen).toEqual(['a1', 'b1', 'b2', 'c']);
      expect((await people.find(BY_ID, { prefix: 'b', limit: 10 })).docs.map((d) => d.id)).toEqual(['b1', 'b2']);
      expect([await people.count(BY_ID, ''), await people.count(BY_ID, 'b')]).toEqual([4, 2]);
    });

    it('keeps documents of other families apart, and text of any kind as it was', async () => {
      const others = db.collection<Person>({ ...PEOPLE, family: 'others' });
      const p = person({ note: 'ünïcödé \u0000 "quotes" \\ 😀', tags: ['tag'] });
      await people.insert(p);
      expect(await others.get(p.id)).toBeUndefined();
      expect(await others.insert(p)).toEqual({ inserted: true });
      await others.delete(p.id);
      expect(await people.get(p.id)).toEqual(p);
      expect((await others.find('tag', { prefix: '', limit: 10 })).docs).toEqual([]);
    });
  });
}

collectionContract('memory', describe, async () => {
  const db = new MemoryDatabase();
  return { open: () => db, cleanup: async () => undefined };
});

async function folderHarness(open: (dir: string) => Database): Promise<AdapterHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-storage-'));
  return { open: () => open(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

collectionContract('level', describe, () => folderHarness((dir) => new LevelDatabase(`level://${dir}`)));
collectionContract('SQLite (node:sqlite)', describe, () => folderHarness((dir) => new SqliteDatabase(`sqlite://${join(dir, 'auth.db')}`)));
collectionContract('SQLite (better-sqlite3)', describeBetterSqlite, () => folderHarness((dir) => new SqliteDatabase(`sqlite://${join(dir, 'auth.db')}?driver=better-sqlite3`)));

const postgres = sharedServer(startPostgres);
collectionContract('PostgreSQL', describePostgres, async () => {
  const server = await postgres();
  const uri = `${server.url}?schema=st_${randomBytes(6).toString('hex')}`;
  return { open: () => new PostgresDatabase(uri), cleanup: () => dropSchema(server.url, new URL(uri).searchParams.get('schema') as string) };
});

const mariadb = sharedServer(startMysql);
collectionContract('MySQL (MariaDB 10.11)', describeMysql, async () => {
  const fresh = await freshMysqlDatabase((await mariadb()).url);
  return { open: () => new MysqlDatabase(fresh.uri), cleanup: () => fresh.drop() };
});

collectionContract('MongoDB (stand-in, or MONGO_URL)', describeMongo, async () => {
  const { uri, db } = await freshMongoUri();
  return { open: () => new MongoDatabase(uri), cleanup: () => dropMongoDb(db) };
});
