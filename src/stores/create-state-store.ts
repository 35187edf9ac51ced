import { storeFor } from './adapters';
import { CollectionStateStore } from '../core/state/collection-state-store';
import type { StateStore } from '../core/state/state-store';

/** The URI schemes {@link createStateStore} accepts. */
export const STATE_STORE_SCHEMES = [
  'memory://',
  'level://',
  'redis://',
  'rediss://',
  'redis+sentinel://',
  'redis+cluster://',
  'postgres://',
  'postgresql://',
  'mysql://',
  'sqlite://',
  'mongodb://',
  'mongodb+srv://',
] as const;

/**
 * Makes a state store from a URI: `memory://` (one process), `level:///path` (embedded, survives
 * restarts), `sqlite:///path/file.db`; shared by several instances: `redis://host:6379/0?prefix=app:`,
 * `redis+sentinel://s1:26379,s2:26379/mymaster`, `redis+cluster://n1:6379,n2:6379` (`rediss` for
 * TLS), `postgres://user@host/db?schema=app` (`postgres://h1,h2/db` finds the primary), `mysql://user@host/db`,
 * `mongodb://host/db?state_db=&state_coll=`. MySQL, SQLite and MongoDB have no announcements
 * (caches read through).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createStateStore(uri: string): StateStore {
  return storeFor('state', uri, 'state', STATE_STORE_SCHEMES, (database) => new CollectionStateStore(database));
}
