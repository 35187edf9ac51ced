import { configError } from '../base/errors';
import { ambiguousUri, displayUri } from './guarded-store';
import { uriPath, uriScheme } from './store-uri';

/**
 * The store families of the core, by the name each takes in a folder: what `createAuth({ database })`
 * places on one database. A plugin's family is any other name of lower-case letters, digits, dashes
 * and `_` (a record family's `Schema.family` name fits).
 */
export type StoreFamily = 'state' | 'avatars' | 'credentials' | 'users' | 'audit';

const FAMILY_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** The schemes `database` takes, as errors list them. */
export const DATABASE_SCHEMES = ['memory://', 'level:///path', 'postgres://...', 'mysql://...', 'sqlite:///path/file.db', 'mongodb://...'] as const;

/**
 * The URI of one family's store on `database`: the same URI on a server database or a SQLite file
 * (each family has tables or collections of its own there, on one shared connection), a folder
 * of its own under a level folder (a LevelDB folder is one process's, and state and avatars keep
 * other encodings), memory for memory. `undefined` without a database.
 * @throws AuthError (`config`) for a URI no family can live on.
 */
export function familyUri(database: string | undefined, family: StoreFamily | (string & {})): string | undefined {
  if (!FAMILY_NAME.test(family)) throw configError(`a store family is named with lower-case letters, digits, dashes and _; got ${JSON.stringify(family)}`);
  if (database === undefined) return undefined;
  const ambiguous = ambiguousUri(database);
  if (ambiguous !== undefined) throw configError(`database: ${ambiguous}`);
  const scheme = uriScheme(database);
  switch (scheme) {
    case 'memory':
      return 'memory://';
    case 'level': {
      const folder = uriPath(database, 'level:///var/lib/app/auth').replace(/\/+$/, '');
      return `level://${folder}/${family}`;
    }
    case 'postgres':
    case 'postgresql':
    case 'mysql':
    case 'sqlite':
    case 'mongodb':
    case 'mongodb+srv':
      return database;
    case 'redis':
    case 'rediss':
    case 'redis+sentinel':
    case 'rediss+sentinel':
    case 'redis+cluster':
    case 'rediss+cluster':
      throw configError('database: Redis keeps only the state store; set database to PostgreSQL, MySQL, SQLite or MongoDB (or a level folder) and stateStore to the redis:// URI');
    default:
      throw configError(`database must be a URI: ${DATABASE_SCHEMES.join(', ')}; got ${JSON.stringify(displayUri(String(database)).slice(0, 80))}`);
  }
}

/** Checks the `database` option at once (a mistake fails at start-up). */
export function checkDatabase(database: unknown): string | undefined {
  if (database === undefined) return undefined;
  if (typeof database !== 'string' || database === '') throw configError(`database must be a URI: ${DATABASE_SCHEMES.join(', ')}`);
  familyUri(database, 'state');
  return database;
}

/**
 * The core families that will live in this process's memory (absent or `memory://`): lost on a
 * restart and not shared with other instances.
 */
export function ephemeralFamilies(stores: Readonly<Record<StoreFamily, unknown>>): StoreFamily[] {
  return (Object.keys(stores) as StoreFamily[]).filter((family) => {
    const given = stores[family];
    return given === undefined || (typeof given === 'string' && uriScheme(given) === 'memory');
  });
}
