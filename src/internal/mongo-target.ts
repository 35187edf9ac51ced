import { AuthError } from '../base/errors';

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
