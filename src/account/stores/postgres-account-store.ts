import { PgDatabase } from '../../internal/postgres';
import type { Account, LinkedLogin } from '../account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore, type LinkOutcome } from '../account-store';

const UNIQUE_VIOLATION = '23505';

/**
 * Accounts in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (tables
 * `authgate_accounts`, with the e-mail unique, `authgate_account_tokens`, only hashes, and
 * `authgate_account_logins`, linked logins). A unique index makes racing sign-ups create one
 * account, the login's key racing links one link; `update` locks the row (`FOR UPDATE`).
 */
export class PostgresAccountStore implements AccountStore {
  private readonly db: PgDatabase;
  private readonly accounts: string;
  private readonly tokens: string;
  private readonly logins: string;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    this.db = new PgDatabase(uri);
    this.accounts = this.db.table('accounts');
    this.tokens = this.db.table('account_tokens');
    this.logins = this.db.table('account_logins');
  }

  private ready(): Promise<void> {
    return this.db.migrate('accounts', [
      `CREATE TABLE ${this.accounts} (id text PRIMARY KEY, email text NOT NULL UNIQUE, doc jsonb NOT NULL);
       CREATE TABLE ${this.tokens} (hash text PRIMARY KEY, user_id text NOT NULL, expires timestamptz NOT NULL);
       CREATE INDEX ON ${this.tokens} (user_id); CREATE INDEX ON ${this.tokens} (expires)`,
      `CREATE TABLE ${this.logins} (user_id text PRIMARY KEY, account_id text NOT NULL REFERENCES ${this.accounts} (id) ON DELETE CASCADE,
         provider text NOT NULL, name text NOT NULL, linked timestamptz NOT NULL);
       CREATE INDEX ON ${this.logins} (account_id)`,
    ]);
  }

  /** @inheritdoc */
  async create(account: Account): Promise<void> {
    await this.ready();
    try {
      await this.db.query(`INSERT INTO ${this.accounts} (id, email, doc) VALUES ($1, $2, $3)`, [account.Id, account.Email, JSON.stringify(account)]);
    } catch (err) {
      if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) throw new DuplicateEmailError(account.Email);
      throw err;
    }
  }

  /** @inheritdoc */
  async get(id: string): Promise<Account | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: Account }>(`SELECT doc FROM ${this.accounts} WHERE id = $1`, [id]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  async getByEmail(email: string): Promise<Account | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: Account }>(`SELECT doc FROM ${this.accounts} WHERE email = $1`, [email]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  update(id: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    return this.rewrite(id, change, undefined);
  }

  /** @inheritdoc */
  async list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }> {
    await this.ready();
    const [page, count] = await Promise.all([
      this.db.query<{ doc: Account }>(`SELECT doc FROM ${this.accounts} ORDER BY id OFFSET $1 LIMIT $2`, [offset, limit]),
      this.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.accounts}`),
    ]);
    return { accounts: page.rows.map((r) => r.doc), total: Number(count.rows[0]?.n ?? 0) };
  }

  /** @inheritdoc */
  async saveToken(hash: string, record: AccessTokenRecord): Promise<void> {
    await this.ready();
    await this.db.query(`INSERT INTO ${this.tokens} (hash, user_id, expires) VALUES ($1, $2, $3) ON CONFLICT (hash) DO UPDATE SET user_id = EXCLUDED.user_id, expires = EXCLUDED.expires`, [
      hash,
      record.UserId,
      record.Expires,
    ]);
    // Expired tokens go in small batches as new ones come, found through the index.
    await this.db.query(`DELETE FROM ${this.tokens} WHERE hash IN (SELECT hash FROM ${this.tokens} WHERE expires < now() LIMIT 100)`);
  }

  /** @inheritdoc */
  async getToken(hash: string): Promise<AccessTokenRecord | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ user_id: string; expires: Date }>(`SELECT user_id, expires FROM ${this.tokens} WHERE hash = $1`, [hash]);
    const row = rows[0];
    return row && { UserId: row.user_id, Expires: row.expires.toISOString() };
  }

  /** @inheritdoc */
  async deleteToken(hash: string): Promise<void> {
    await this.ready();
    await this.db.query(`DELETE FROM ${this.tokens} WHERE hash = $1`, [hash]);
  }

  /** @inheritdoc */
  async changeEmail(id: string, email: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    try {
      return await this.rewrite(id, change, email);
    } catch (err) {
      if ((err as { code?: unknown }).code === UNIQUE_VIOLATION) throw new DuplicateEmailError(email);
      throw err;
    }
  }

  /** Read (locked), change and write in one transaction: `update`, and with `email` a move to it (the unique index decides races). */
  private async rewrite(id: string, change: (account: Account) => Account | undefined, email: string | undefined): Promise<Account | undefined> {
    await this.ready();
    return this.db.updateDoc<Account>(this.accounts, id, change, async (query, next, current) => {
      const saved = { ...next, Id: id, Email: email ?? current.Email };
      await query(`UPDATE ${this.accounts} SET email = $2, doc = $3 WHERE id = $1`, [id, saved.Email, JSON.stringify(saved)]);
      return saved;
    });
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    return this.db.transaction(async (query) => {
      await query(`DELETE FROM ${this.tokens} WHERE user_id = $1`, [id]);
      const { rowCount } = await query(`DELETE FROM ${this.accounts} WHERE id = $1`, [id]);
      return rowCount === 1;
    });
  }

  /** @inheritdoc */
  async linkLogin(accountId: string, login: LinkedLogin, max: number): Promise<LinkOutcome> {
    await this.ready();
    return this.db.transaction(async (query) => {
      // The account's row lock orders links of one account (the limit); the key decides races on one login.
      const account = await query(`SELECT 1 FROM ${this.accounts} WHERE id = $1 FOR UPDATE`, [accountId]);
      if (account.rowCount === 0) return 'no-account';
      const ownerOf = async (): Promise<LinkOutcome | undefined> => {
        const { rows } = await query<{ account_id: string }>(`SELECT account_id FROM ${this.logins} WHERE user_id = $1`, [login.UserId]);
        return rows[0] === undefined ? undefined : rows[0].account_id === accountId ? 'already' : 'taken';
      };
      const linked = await ownerOf();
      if (linked) return linked;
      const { rows } = await query<{ n: string }>(`SELECT count(*) AS n FROM ${this.logins} WHERE account_id = $1`, [accountId]);
      if (Number(rows[0]?.n ?? 0) >= max) return 'full';
      const inserted = await query(`INSERT INTO ${this.logins} (user_id, account_id, provider, name, linked) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id) DO NOTHING`, [
        login.UserId,
        accountId,
        login.Provider,
        login.Name,
        login.Linked,
      ]);
      return inserted.rowCount === 1 ? 'linked' : ((await ownerOf()) ?? 'taken');
    });
  }

  /** @inheritdoc */
  async unlinkLogin(accountId: string, userId: string): Promise<boolean> {
    await this.ready();
    const { rowCount } = await this.db.query(`DELETE FROM ${this.logins} WHERE user_id = $1 AND account_id = $2`, [userId, accountId]);
    return rowCount === 1;
  }

  /** @inheritdoc */
  async loginsOf(accountId: string): Promise<LinkedLogin[]> {
    await this.ready();
    const { rows } = await this.db.query<{ user_id: string; provider: string; name: string; linked: Date }>(
      `SELECT user_id, provider, name, linked FROM ${this.logins} WHERE account_id = $1 ORDER BY linked, user_id`,
      [accountId],
    );
    return rows.map((r) => ({ UserId: r.user_id, Provider: r.provider, Name: r.name, Linked: r.linked.toISOString() }));
  }

  /** @inheritdoc */
  async accountOfLogin(userId: string): Promise<string | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ account_id: string }>(`SELECT account_id FROM ${this.logins} WHERE user_id = $1`, [userId]);
    return rows[0]?.account_id;
  }

  /** @inheritdoc */
  async deleteTokensOf(userId: string, keep?: string): Promise<number> {
    await this.ready();
    const { rowCount } = await this.db.query(`DELETE FROM ${this.tokens} WHERE user_id = $1 AND hash IS DISTINCT FROM $2`, [userId, keep ?? null]);
    return rowCount;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.db.close();
  }
}
