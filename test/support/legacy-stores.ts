import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { dropMongoDb, freshMongoUri, mongoUrl } from './mongo';
import { dropSchema } from './servers';

/**
 * A level folder holding `entries` as the stores of before 2026-11-27 wrote them (utf8 keys and
 * values); `check` gets its URI, and the folder goes after.
 */
export async function withLegacyLevel(entries: ReadonlyArray<[string, string]>, check: (uri: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-legacy-'));
  try {
    const db = new Level<string, string>(dir, { valueEncoding: 'utf8' });
    for (const [key, value] of entries) await db.put(key, value);
    await db.close();
    await check(`level://${dir}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A fresh schema on `serverUrl` where `setup` writes what an older store wrote (its SQL, run as
 * given with `${schema}` filled in, and `applied(family, n)`: the older store's migrations table
 * recording versions 1 to n); `check` gets the store URI on that schema and a client to look at
 * the tables, and the schema goes after.
 */
export async function withLegacyPostgres(
  serverUrl: string,
  setup: (sql: (text: string, params?: unknown[]) => Promise<unknown>, schema: string, applied: (family: string, versions: number) => Promise<void>) => Promise<void>,
  check: (uri: string, client: Client, schema: string) => Promise<void>,
): Promise<void> {
  const schema = `old_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
    const applied = async (family: string, versions: number): Promise<void> => {
      // The migrations table as the older stores made it.
      await client.query(
        `CREATE TABLE IF NOT EXISTS "${schema}"."authgate_migrations" (family text NOT NULL, version integer NOT NULL, applied timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (family, version))`,
      );
      for (let version = 1; version <= versions; version++) await client.query(`INSERT INTO "${schema}"."authgate_migrations" (family, version) VALUES ($1, $2)`, [family, version]);
    };
    await setup((text, params) => client.query(text, params as unknown[]), schema, applied);
    await check(`${serverUrl}?schema=${schema}`, client, schema);
  } finally {
    await client.end();
    await dropSchema(serverUrl, schema);
  }
}

/** A document as the older MongoDB stores wrote it: its id field as `_id`, and a version counter `_v`. */
export function olderMongoRecord<T extends object>(doc: T, idField: keyof T): Record<string, unknown> {
  // As JSON: a field left undefined is absent (the driver would write it as null).
  const { [idField]: id, ...rest } = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  return { _id: id, ...rest, _v: 2 };
}

/**
 * A fresh MongoDB database (the stand-in, or `MONGO_URL`) holding `collections` as the stores of
 * before 2026-11-28 wrote them; `check` gets its URI, and the database goes after.
 */
export async function withLegacyMongo(collections: Record<string, Array<Record<string, unknown>>>, check: (uri: string) => Promise<void>): Promise<void> {
  const { uri, db } = await freshMongoUri();
  const client = new MongoClient(await mongoUrl());
  try {
    for (const [name, docs] of Object.entries(collections))
      if (docs.length > 0)
        await client
          .db(db)
          .collection(name)
          .insertMany(docs as never[]);
    await check(uri);
  } finally {
    await client.close();
    await dropMongoDb(db);
  }
}
