import type { MongoClient } from 'mongodb';
import { loadOptional } from './optional';
import { SharedHandles, type Lease } from './shared-handles';
import { AuthError } from '../core/errors';

/** A mongodb URI split into what the driver gets and where authgate keeps its data. */
export interface MongoTarget {
  /** The URI for MongoClient, without authgate's own parameters. */
  clientUri: string;
  /** Database name. */
  db: string;
  /** Collection (or GridFS bucket) name. */
  coll: string;
}

const NAME = /^[A-Za-z0-9_-]{1,63}$/;

/**
 * Reads a `mongodb://` or `mongodb+srv://` URI with authgate's parameters `<prefix>_db` and
 * `<prefix>_coll` (e.g. `ava_db`, `ava_coll`), which are removed before the driver sees the URI.
 * The database defaults to the URI's path, else `authgate`.
 * @throws AuthError (`config`) for a malformed URI or bad names.
 */
export function parseMongoUri(uri: string, prefix: string, defaultColl: string): MongoTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new AuthError('config', `authgate: ${JSON.stringify(uri.replace(/\/\/[^@/]*@/, '//***@'))} is not a valid mongodb URI`);
  }
  if (url.protocol !== 'mongodb:' && url.protocol !== 'mongodb+srv:') throw new AuthError('config', 'authgate: a mongo store URI starts with mongodb:// or mongodb+srv://');
  if (url.hostname === '') throw new AuthError('config', 'authgate: the mongodb URI has no host');
  const db = url.searchParams.get(`${prefix}_db`) ?? (decodeURIComponent(url.pathname.slice(1)) || 'authgate');
  const coll = url.searchParams.get(`${prefix}_coll`) ?? defaultColl;
  for (const [what, name] of [
    [`${prefix}_db`, db],
    [`${prefix}_coll`, coll],
  ] as const) {
    if (!NAME.test(name)) throw new AuthError('config', `authgate: mongodb ${what} ${JSON.stringify(name)} must be 1 to 63 letters, digits, "_" or "-"`);
  }
  url.searchParams.delete(`${prefix}_db`);
  url.searchParams.delete(`${prefix}_coll`);
  return { clientUri: url.toString(), db, coll };
}

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
