import { AuthError } from '../errors';
import { uriPath, uriScheme } from '../internal/store-uri';
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
  switch (typeof uri === 'string' ? uriScheme(uri) : undefined) {
    case 'memory':
      return new MemoryAccountStore();
    case 'level':
      return new LevelAccountStore(uriPath(uri, 'level:///var/lib/app/accounts'), { logger });
    case 'postgres':
    case 'postgresql':
      return new PostgresAccountStore(uri);
    case 'mongodb':
    case 'mongodb+srv':
      return new MongoAccountStore(uri, { logger });
    default:
      throw new AuthError('config', `authgate: unsupported account store URI ${JSON.stringify(String(uri).slice(0, 80))}; use one of ${ACCOUNT_STORE_SCHEMES.join(', ')}`);
  }
}
