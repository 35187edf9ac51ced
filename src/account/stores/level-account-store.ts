import type { Level } from 'level';
import { openLevel } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import { KeyLock } from '../../internal/key-lock';
import { noopLogger, type Logger } from '../../logger';
import type { Account, LinkedLogin } from '../account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore, type LinkOutcome } from '../account-store';
import { planEmailMigration } from '../email-migration';

const ACC = 'acc!';
const EMAIL = 'email!';
const TOKEN = 'tok!';
const USER_TOKEN = 'utok!';
/** A linked login's user id → its account id. */
const LOGIN = 'login!';
/** `acclogin!<account id>!<user id>` → the link. */
const ACC_LOGIN = 'acclogin!';
const END = '\xff';
/** Marks a store whose e-mails are in the canonical form (trim, NFC, lower-case). */
const EMAIL_FORM_KEY = 'meta!email-form';
const EMAIL_FORM = 'canonical-1';

/**
 * Accounts in an embedded LevelDB folder (the default: nothing to install). The e-mail index is
 * written in the same batch as the account, under a per-e-mail lock, so racing sign-ups create
 * exactly one account; updates run under a per-account lock. One process at a time.
 */
export class LevelAccountStore implements AccountStore {
  private readonly db: Level<string, string>;
  private readonly lease: Lease<Level<string, string>>;
  private readonly lock = new KeyLock();
  private readonly logger: Logger;
  private migrated: Promise<void> | undefined;

  /**
   * @param path - the database folder; created when missing.
   * @param options - `logger` hears about e-mail spellings merged when an older store is opened.
   */
  constructor(path: string, options: { logger?: Logger } = {}) {
    this.lease = openLevel<string>(path, 'utf8');
    this.db = this.lease.handle;
    this.logger = options.logger ?? noopLogger;
  }

  /** Opens the store and, once per store, moves e-mails written by older versions to the canonical form. */
  private ready(): Promise<void> {
    this.migrated ??= this.migrateEmails().catch((err: unknown) => {
      this.migrated = undefined;
      throw err;
    });
    return this.migrated;
  }

  private async migrateEmails(): Promise<void> {
    if ((await this.db.get(EMAIL_FORM_KEY)) === EMAIL_FORM) return;
    await this.lock.run('migration', async () => {
      const accounts: Account[] = [];
      for await (const [, value] of this.db.iterator({ gt: ACC, lt: ACC + END })) accounts.push(JSON.parse(value) as Account);
      const plan = planEmailMigration(accounts);
      const byId = new Map(accounts.map((a) => [a.Id, a]));
      const ops: Array<{ type: 'put'; key: string; value: string } | { type: 'del'; key: string }> = [];
      for (const { email } of [...plan.deletes, ...plan.unindexed]) ops.push({ type: 'del', key: EMAIL + email });
      for (const { id } of plan.deletes) ops.push({ type: 'del', key: ACC + id });
      for (const { id, from, to } of plan.renames) {
        ops.push({ type: 'del', key: EMAIL + from }, { type: 'put', key: ACC + id, value: JSON.stringify({ ...byId.get(id), Email: to }) }, { type: 'put', key: EMAIL + to, value: id });
      }
      ops.push({ type: 'put', key: EMAIL_FORM_KEY, value: EMAIL_FORM });
      await this.db.batch(ops);
      for (const { id } of plan.deletes) await this.deleteTokensOf(id);
      if (plan.renames.length > 0) this.logger.logf('[INFO] account store: %d e-mails moved to the canonical form (lower case)', plan.renames.length);
      for (const { id, kept } of plan.unindexed) {
        this.logger.logf('[WARN] account store: account %s has the same canonical e-mail as account %s, which keeps it; %s stays reachable by id', id, kept, id);
      }
      for (const { id } of plan.deletes) this.logger.logf('[INFO] account store: unactivated sign-up %s dropped: another account has the same canonical e-mail', id);
    });
  }

  private async read<T>(key: string): Promise<T | undefined> {
    await this.ready();
    const value = await this.db.get(key);
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  /** @inheritdoc */
  create(account: Account): Promise<void> {
    return this.lock.run(`email:${account.Email}`, async () => {
      await this.ready();
      if ((await this.db.get(EMAIL + account.Email)) !== undefined) throw new DuplicateEmailError(account.Email);
      await this.db.batch([
        { type: 'put', key: ACC + account.Id, value: JSON.stringify(account) },
        { type: 'put', key: EMAIL + account.Email, value: account.Id },
      ]);
    });
  }

  /** @inheritdoc */
  get(id: string): Promise<Account | undefined> {
    return this.read<Account>(ACC + id);
  }

  /** @inheritdoc */
  async getByEmail(email: string): Promise<Account | undefined> {
    await this.ready();
    const id = await this.db.get(EMAIL + email);
    return id === undefined ? undefined : this.get(id);
  }

  /** @inheritdoc */
  update(id: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    return this.lock.run(`acc:${id}`, async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, Id: id, Email: current.Email };
      await this.db.put(ACC + id, JSON.stringify(saved));
      return saved;
    });
  }

  /** @inheritdoc */
  changeEmail(id: string, email: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    return this.lock.run(`acc:${id}`, () =>
      // The new address's lock, as `create` takes it: of racing moves and sign-ups to it, one wins.
      this.lock.run(`email:${email}`, async () => {
        const current = await this.get(id);
        if (!current) return undefined;
        const owner = await this.db.get(EMAIL + email);
        if (owner !== undefined && owner !== id) throw new DuplicateEmailError(email);
        const next = change(structuredClone(current));
        if (!next) return current;
        const saved = { ...next, Id: id, Email: email };
        await this.db.batch([
          { type: 'del', key: EMAIL + current.Email },
          { type: 'put', key: EMAIL + email, value: id },
          { type: 'put', key: ACC + id, value: JSON.stringify(saved) },
        ]);
        return saved;
      }),
    );
  }

  /** @inheritdoc */
  delete(id: string): Promise<boolean> {
    return this.lock.run(`acc:${id}`, async () => {
      const current = await this.get(id);
      if (!current) return false;
      // Under the e-mail's lock too: a sign-up of that e-mail waits until it is free.
      await this.lock.run(`email:${current.Email}`, async () => {
        const owner = await this.db.get(EMAIL + current.Email);
        await this.db.batch([{ type: 'del', key: ACC + id }, ...(owner === id ? [{ type: 'del' as const, key: EMAIL + current.Email }] : [])]);
      });
      await this.deleteTokensOf(id);
      const links = await this.loginsOf(id);
      await this.db.batch(
        links.flatMap((l) => [
          { type: 'del' as const, key: LOGIN + l.UserId },
          { type: 'del' as const, key: `${ACC_LOGIN}${id}!${l.UserId}` },
        ]),
      );
      return true;
    });
  }

  /** @inheritdoc */
  linkLogin(accountId: string, login: LinkedLogin, max: number): Promise<LinkOutcome> {
    // The account's lock (as delete takes it), then the login's: of racing links of one login, one wins.
    return this.lock.run(`acc:${accountId}`, () =>
      this.lock.run(`login:${login.UserId}`, async () => {
        if (!(await this.get(accountId))) return 'no-account';
        const owner = await this.db.get(LOGIN + login.UserId);
        if (owner !== undefined) return owner === accountId ? 'already' : 'taken';
        if ((await this.loginsOf(accountId)).length >= max) return 'full';
        await this.db.batch([
          { type: 'put', key: LOGIN + login.UserId, value: accountId },
          { type: 'put', key: `${ACC_LOGIN}${accountId}!${login.UserId}`, value: JSON.stringify(login) },
        ]);
        return 'linked';
      }),
    );
  }

  /** @inheritdoc */
  unlinkLogin(accountId: string, userId: string): Promise<boolean> {
    return this.lock.run(`acc:${accountId}`, () =>
      this.lock.run(`login:${userId}`, async () => {
        await this.ready();
        if ((await this.db.get(LOGIN + userId)) !== accountId) return false;
        await this.db.batch([
          { type: 'del', key: LOGIN + userId },
          { type: 'del', key: `${ACC_LOGIN}${accountId}!${userId}` },
        ]);
        return true;
      }),
    );
  }

  /** @inheritdoc */
  async loginsOf(accountId: string): Promise<LinkedLogin[]> {
    await this.ready();
    const prefix = `${ACC_LOGIN}${accountId}!`;
    const links: LinkedLogin[] = [];
    for await (const value of this.db.values({ gt: prefix, lt: prefix + END })) links.push(JSON.parse(value) as LinkedLogin);
    return links.sort((a, b) => a.Linked.localeCompare(b.Linked));
  }

  /** @inheritdoc */
  async accountOfLogin(userId: string): Promise<string | undefined> {
    await this.ready();
    return this.db.get(LOGIN + userId);
  }

  /** @inheritdoc */
  async list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }> {
    await this.ready();
    const accounts: Account[] = [];
    let total = 0;
    for await (const [, value] of this.db.iterator({ gt: ACC, lt: ACC + END })) {
      if (total >= offset && accounts.length < limit) accounts.push(JSON.parse(value) as Account);
      total++;
    }
    return { accounts, total };
  }

  /** @inheritdoc */
  async saveToken(hash: string, record: AccessTokenRecord): Promise<void> {
    await this.ready();
    await this.db.batch([
      { type: 'put', key: TOKEN + hash, value: JSON.stringify(record) },
      { type: 'put', key: `${USER_TOKEN}${record.UserId}!${hash}`, value: '' },
    ]);
  }

  /** @inheritdoc */
  getToken(hash: string): Promise<AccessTokenRecord | undefined> {
    return this.read<AccessTokenRecord>(TOKEN + hash);
  }

  /** @inheritdoc */
  async deleteToken(hash: string): Promise<void> {
    const record = await this.getToken(hash);
    const ops: Array<{ type: 'del'; key: string }> = [{ type: 'del', key: TOKEN + hash }];
    if (record) ops.push({ type: 'del', key: `${USER_TOKEN}${record.UserId}!${hash}` });
    await this.db.batch(ops);
  }

  /** @inheritdoc */
  async deleteTokensOf(userId: string, keep?: string): Promise<number> {
    const prefix = `${USER_TOKEN}${userId}!`;
    const ops: Array<{ type: 'del'; key: string }> = [];
    for await (const key of this.db.keys({ gt: prefix, lt: prefix + END })) {
      const hash = key.slice(prefix.length);
      if (hash === keep) continue;
      ops.push({ type: 'del', key }, { type: 'del', key: TOKEN + hash });
    }
    if (ops.length > 0) await this.db.batch(ops);
    return ops.length / 2;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
