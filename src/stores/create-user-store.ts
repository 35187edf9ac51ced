import { storeFor } from './adapters';
import type { UserStore } from '../core/users/user-store';
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
  // Memory keeps its sorted in-process indexes; the classes of the older stores stay what their URIs give.
  return storeFor('users', uri, 'user', USER_STORE_SCHEMES, (database) => new UserRepository(database));
}
