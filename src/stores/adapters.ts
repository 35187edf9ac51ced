import { unsupportedStore, uriScheme } from '../internal/store-uri';
import type { Database } from '../core/storage/database';
import { memoryAdapter } from './memory/adapter';
import type { StoreAdapter } from '../core/adapters/store-adapter';

type Load = () => StoreAdapter;

// Each database's folder is loaded when a URI first names it, so require('authgate') loads none
// that the app does not use (and none of their drivers' wrappers).
/* eslint-disable @typescript-eslint/no-require-imports */
const level: Load = () => (require('./level/adapter') as typeof import('./level/adapter')).levelAdapter;
const postgres: Load = () => (require('./postgres/adapter') as typeof import('./postgres/adapter')).postgresAdapter;
const mysql: Load = () => (require('./mysql/adapter') as typeof import('./mysql/adapter')).mysqlAdapter;
const sqlite: Load = () => (require('./sqlite/adapter') as typeof import('./sqlite/adapter')).sqliteAdapter;
const mongo: Load = () => (require('./mongo/adapter') as typeof import('./mongo/adapter')).mongoAdapter;
const redis: Load = () => (require('./redis/adapter') as typeof import('./redis/adapter')).redisAdapter;
/* eslint-enable @typescript-eslint/no-require-imports */

/** The adapter of each URI scheme (aliases such as `postgresql` have their own entry). */
const ADAPTERS: Readonly<Record<string, Load>> = {
  memory: () => memoryAdapter,
  level,
  postgres,
  postgresql: postgres,
  mysql,
  sqlite,
  mongodb: mongo,
  'mongodb+srv': mongo,
  redis,
  rediss: redis,
  'redis+sentinel': redis,
  'rediss+sentinel': redis,
  'redis+cluster': redis,
  'rediss+cluster': redis,
};

/** The families a {@link StoreAdapter} may keep a store of its own for. */
export type StoreFamily = Exclude<keyof StoreAdapter, 'database'>;

type StoreOf<F extends StoreFamily> = ReturnType<NonNullable<StoreAdapter[F]>>;

/** The adapter of the URI's scheme, loaded now if it was not yet; `undefined` for a scheme no database has. */
function adapterOf(uri: string): StoreAdapter | undefined {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  return scheme !== undefined && Object.prototype.hasOwnProperty.call(ADAPTERS, scheme) ? ADAPTERS[scheme]!() : undefined;
}

/**
 * The database a URI names, through its adapter (see `openDatabase`).
 * @param family - how an error names what the URI was for ("credential").
 * @param schemes - the accepted schemes, as the error lists them.
 * @throws AuthError (`config`) naming the accepted schemes for a scheme without a database.
 */
export function databaseFor(uri: string, family: string, schemes: readonly string[]): Database {
  const adapter = adapterOf(uri);
  if (adapter?.database === undefined) throw unsupportedStore(family, uri, schemes);
  return adapter.database(uri);
}

/**
 * The store of one family that a URI names: the adapter's own store of that family, else the
 * family on the adapter's collection layer (`onDatabase`).
 * @param family - the family.
 * @param uri - the store URI.
 * @param what - how an error names the family ("state", "user").
 * @param schemes - the accepted schemes, as the error lists them.
 * @param onDatabase - the family on a database, for adapters without a store of it.
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function storeFor<F extends StoreFamily>(family: F, uri: string, what: string, schemes: readonly string[], onDatabase?: (database: Database) => StoreOf<F>): StoreOf<F> {
  const adapter = adapterOf(uri);
  const own = adapter?.[family] as ((uri: string) => StoreOf<F>) | undefined;
  if (own !== undefined) return own.call(adapter, uri);
  if (adapter?.database !== undefined && onDatabase !== undefined) return onDatabase(adapter.database(uri));
  throw unsupportedStore(what, uri, schemes);
}
