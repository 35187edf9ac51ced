import type { Logger } from '../../../plugin-kit/helpers';
import { LevelDatabase } from '../../../plugin-kit/storage';
import { AccountRepository } from '../account-repository';

/**
 * Accounts in an embedded LevelDB folder (the default: nothing to install; one process at a time).
 * What an older version kept there is copied on first use, its e-mails moved to the canonical form.
 *
 * @deprecated Open it with `createAccountStore('level:///path')`, which gives this class for a `level://` URI
 * (so `instanceof` holds). The class stays for code written for earlier versions; a database is
 * named only by its URI, and the next major version drops it.
 */
export class LevelAccountStore extends AccountRepository {
  /**
   * @param path - the database folder; created when missing.
   * @param options - `logger` hears about e-mail spellings merged when an older store is copied.
   */
  constructor(path: string, options: { logger?: Logger } = {}) {
    super(new LevelDatabase(`level://${path}`), options.logger);
  }
}
