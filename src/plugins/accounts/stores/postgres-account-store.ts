import { PostgresDatabase } from '../../../plugin-kit/storage';
import { AccountRepository } from '../account-repository';

/**
 * Accounts in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (the
 * families accounts, account_tokens and account_logins, each in tables `authgate_<family>_doc`,
 * `_idx` and `_uniq`; the rows of an older version's `authgate_accounts`, `authgate_account_tokens`
 * and `authgate_account_logins` are copied once, at first use). The e-mail's unique row makes racing
 * sign-ups create one account; an update locks the row (`FOR UPDATE`).
 *
 * @deprecated Open it with `createAccountStore('postgres://user@host/db')`, which gives this class for a `postgres://` URI
 * (so `instanceof` holds). The class stays for code written for earlier versions; a database is
 * named only by its URI, and the next major version drops it.
 */
export class PostgresAccountStore extends AccountRepository {
  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super(new PostgresDatabase(uri));
  }
}
