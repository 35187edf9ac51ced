import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';

/** The MongoDB the mongo suites use; they are reported as skipped without it. */
export const MONGO_URL = process.env.MONGO_URL ?? '';

/** `describe` when MONGO_URL is set, else `describe.skip` (reported as skipped, never as passed). */
export const describeMongo: jest.Describe = MONGO_URL ? describe : describe.skip;

/** A mongodb URI with a fresh database name in `<prefix>_db`, so runs never share data. */
export function freshMongoUri(prefix: string): { uri: string; db: string } {
  const db = `authgate_test_${randomBytes(6).toString('hex')}`;
  const sep = MONGO_URL.includes('?') ? '&' : '?';
  return { uri: `${MONGO_URL}${sep}${prefix}_db=${db}`, db };
}

/** Drops a test database. */
export async function dropMongoDb(db: string): Promise<void> {
  if (!MONGO_URL) return;
  const client = new MongoClient(MONGO_URL);
  try {
    await client.db(db).dropDatabase();
  } finally {
    await client.close();
  }
}
