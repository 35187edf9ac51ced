import type { MongoClient } from 'mongodb';
import { loadOptional } from './optional';
import { SharedHandles, type Lease } from './shared-handles';
import { parseMongoUri } from './mongo-target';
export { parseMongoUri, type MongoTarget } from './mongo-target';

/** The prefixes of the older stores' own parameters (`<prefix>_db`, `<prefix>_coll`), never the driver's. */
const STORE_PARAM_PREFIXES = ['state', 'ava', 'acc', 'cred', 'user', 'org', 'audit'] as const;

/**
 * Reads a `mongodb://` or `mongodb+srv://` URI as a database: its path names it (`authgate`
 * without one); the older stores' parameters (`acc_db`, `cred_coll`, ...) are removed before the
 * driver sees it.
 * @throws AuthError (`config`) for a malformed URI or a bad name.
 */
export function mongoDatabaseTarget(uri: string): { clientUri: string; db: string } {
  const { clientUri, db } = parseMongoUri(uri, 'authgate', 'none');
  const url = new URL(clientUri);
  for (const prefix of STORE_PARAM_PREFIXES) {
    url.searchParams.delete(`${prefix}_db`);
    url.searchParams.delete(`${prefix}_coll`);
  }
  return { clientUri: url.toString(), db };
}

/** The mongodb driver, loaded when a mongo store is made (an optional package). */
export function loadMongo(): typeof import('mongodb') {
  return loadOptional<typeof import('mongodb')>('mongodb', 'a mongodb:// store');
}

/** `true` for the server's duplicate-key error (a unique index refused a write). */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'MongoServerError' && (err as { code?: unknown }).code === 11000;
}

/** One MongoClient (its own pool) per connection URI, whatever the stores and databases on it. */
const clients = new SharedHandles<MongoClient>((client) => client.close());

/** The shared client of a connection URI (as {@link parseMongoUri} gives it); release it when the store closes. */
export function acquireMongoClient(clientUri: string): Lease<MongoClient> {
  return clients.acquire(clientUri, () => new (loadMongo().MongoClient)(clientUri));
}
