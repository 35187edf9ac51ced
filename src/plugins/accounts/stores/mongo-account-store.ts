import { parseMongoUri, type Logger } from '../../../plugin-kit/helpers';
import { MongoDatabase } from '../../../plugin-kit/storage';
import { AccountRepository } from '../account-repository';

/**
 * Accounts in MongoDB, shared by every instance: `mongodb://host/db` (collections
 * `authgate_accounts`, `authgate_account_tokens`, `authgate_account_logins`, each with `_idx` and
 * `_uniq`; an older version's `accounts`, `accounts_tokens` and `accounts_logins` are copied once,
 * at first use). `acc_db` still names the database.
 *
 * @deprecated Open it with `createAccountStore('mongodb://host/db')`, which gives this class for a `mongodb://` URI
 * (so `instanceof` holds). The class stays for code written for earlier versions; a database is
 * named only by its URI, and the next major version drops it.
 */
export class MongoAccountStore extends AccountRepository {
  /**
   * @param uri - `mongodb://...`, optionally with `acc_db`.
   * @param options - `logger` hears about e-mail spellings merged when an older store is copied.
   */
  constructor(uri: string, options: { logger?: Logger } = {}) {
    super(new MongoDatabase(uri, { db: parseMongoUri(uri, 'acc', 'accounts').db }), options.logger);
  }
}
