import { Level } from 'level';
import { KeyLock } from '../../internal/key-lock';
import type { Account } from '../account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore } from '../account-store';

const ACC = 'acc!';
const EMAIL = 'email!';
const TOKEN = 'tok!';
const USER_TOKEN = 'utok!';
const END = '\xff';

/**
 * Accounts in an embedded LevelDB folder (the default: nothing to install). The e-mail index is
 * written in the same batch as the account, under a per-e-mail lock, so racing sign-ups create
 * exactly one account; updates run under a per-account lock. One process at a time.
 */
export class LevelAccountStore implements AccountStore {
  private readonly db: Level<string, string>;
  private readonly lock = new KeyLock();

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    this.db = new Level<string, string>(path, { valueEncoding: 'utf8' });
  }

  private async read<T>(key: string): Promise<T | undefined> {
    const value = await this.db.get(key);
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  /** @inheritdoc */
  create(account: Account): Promise<void> {
    return this.lock.run(`email:${account.Email}`, async () => {
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
  async list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }> {
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
    await this.db.close();
  }
}
