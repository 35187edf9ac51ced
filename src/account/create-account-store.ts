import { storeForUri, uriPath } from '../internal/store-uri';
import type { Logger } from '../logger';
import type { AccountStore } from './account-store';
import { LevelAccountStore } from './stores/level-account-store';
import { MemoryAccountStore } from './stores/memory-account-store';
import { MongoAccountStore } from './stores/mongo-account-store';
import { PostgresAccountStore } from './stores/postgres-account-store';

/** The URI schemes {@link createAccountStore} accepts. */
export const ACCOUNT_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes an account store: `level:///path` (embedded, the default kind); shared by instances:
 * `postgres://user@host/db?schema=app`, `mongodb://host/db?acc_db=&acc_coll=`; `memory://` (tests).
 * @param logger - hears about e-mails moved to the canonical form when an older store is opened.
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createAccountStore(uri: string, logger?: Logger): AccountStore {
  const postgres = (): AccountStore => new PostgresAccountStore(uri);
  const mongo = (): AccountStore => new MongoAccountStore(uri, { logger });
  return storeForUri('account', uri, ACCOUNT_STORE_SCHEMES, {
    memory: () => new MemoryAccountStore(),
    level: () => new LevelAccountStore(uriPath(uri, 'level:///var/lib/app/accounts'), { logger }),
    postgres,
    postgresql: postgres,
    mongodb: mongo,
    'mongodb+srv': mongo,
  });
}
