import { uriPath, uriScheme, type Logger } from '../../plugin-kit/helpers';
import { openDatabase } from '../../plugin-kit/storage';
import { AccountRepository } from './account-repository';
import type { AccountStore } from './account-store';
import { LevelAccountStore } from './stores/level-account-store';
import { MemoryAccountStore } from './stores/memory-account-store';
import { MongoAccountStore } from './stores/mongo-account-store';
import { PostgresAccountStore } from './stores/postgres-account-store';

/** The URI schemes {@link createAccountStore} accepts. */
export const ACCOUNT_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mysql://', 'sqlite://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes an account store: `level:///path` (embedded, the default kind) or `sqlite:///path/file.db`
 * (one machine); shared by instances: `postgres://user@host/db?schema=app`, `mysql://user@host/db`,
 * `mongodb://host/db?acc_db=&acc_coll=`; `memory://` (tests).
 * @param logger - hears about e-mails moved to the canonical form when an older store is opened.
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createAccountStore(uri: string, logger?: Logger): AccountStore {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') return new MongoAccountStore(uri, { logger });
  // The classes of the older stores stay what these URIs give (apps may test for them).
  if (scheme === 'memory') return new MemoryAccountStore();
  if (scheme === 'level') return new LevelAccountStore(uriPath(uri, 'level:///var/lib/app/accounts'), { logger });
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresAccountStore(uri);
  return new AccountRepository(openDatabase(uri, 'account'), logger);
}
