import { uriScheme } from '../internal/store-uri';
import { openDatabase } from './open-database';
import type { UserStore } from '../core/users/user-store';
import { MemoryUserStore } from './memory/memory-user-store';
import { MongoUserStore } from './mongo/mongo-user-store';
import { PostgresUserStore } from './postgres/postgres-user-store';
import { UserRepository } from '../core/users/user-repository';

/** The URI schemes {@link createUserStore} accepts. */
export const USER_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mysql://', 'sqlite://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes a user directory store: `level:///path` or `sqlite:///path/file.db` (one machine); shared by
 * instances: `postgres://user@host/db?schema=app`, `mysql://user@host/db`,
 * `mongodb://host/db?user_db=&user_coll=`; `memory://` (tests: nothing survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createUserStore(uri: string): UserStore {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') return new MongoUserStore(uri);
  // Memory keeps its sorted in-process indexes; the classes of the older stores stay what these URIs give.
  if (scheme === 'memory') return new MemoryUserStore();
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresUserStore(uri);
  return new UserRepository(openDatabase(uri, 'user'));
}
