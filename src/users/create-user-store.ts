import { storeForUri, uriPath } from '../internal/store-uri';
import type { UserStore } from './user-store';
import { LevelUserStore } from './stores/level-user-store';
import { MemoryUserStore } from './stores/memory-user-store';
import { MongoUserStore } from './stores/mongo-user-store';
import { PostgresUserStore } from './stores/postgres-user-store';

/** The URI schemes {@link createUserStore} accepts. */
export const USER_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes a user directory store: `level:///path` (embedded); shared by instances:
 * `postgres://user@host/db?schema=app`, `mongodb://host/db?user_db=&user_coll=`; `memory://`
 * (tests: nothing survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createUserStore(uri: string): UserStore {
  const postgres = (): UserStore => new PostgresUserStore(uri);
  const mongo = (): UserStore => new MongoUserStore(uri);
  return storeForUri('user', uri, USER_STORE_SCHEMES, {
    memory: () => new MemoryUserStore(),
    level: () => new LevelUserStore(uriPath(uri, 'level:///var/lib/app/users')),
    postgres,
    postgresql: postgres,
    mongodb: mongo,
    'mongodb+srv': mongo,
  });
}
