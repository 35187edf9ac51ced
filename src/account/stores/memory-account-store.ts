import type { Account } from '../account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore } from '../account-store';

/** Accounts in process memory: for tests and trials (nothing survives a restart). */
export class MemoryAccountStore implements AccountStore {
  private readonly accounts = new Map<string, Account>();
  private readonly byEmail = new Map<string, string>();
  private readonly tokens = new Map<string, AccessTokenRecord>();

  /** @inheritdoc */
  async create(account: Account): Promise<void> {
    if (this.byEmail.has(account.Email)) throw new DuplicateEmailError(account.Email);
    this.byEmail.set(account.Email, account.Id);
    this.accounts.set(account.Id, structuredClone(account));
  }

  /** @inheritdoc */
  async get(id: string): Promise<Account | undefined> {
    const account = this.accounts.get(id);
    return account && structuredClone(account);
  }

  /** @inheritdoc */
  async getByEmail(email: string): Promise<Account | undefined> {
    const id = this.byEmail.get(email);
    return id === undefined ? undefined : this.get(id);
  }

  /** @inheritdoc */
  async update(id: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    const current = this.accounts.get(id);
    if (!current) return undefined;
    const next = change(structuredClone(current));
    if (next) this.accounts.set(id, structuredClone({ ...next, Id: id, Email: current.Email }));
    return this.get(id);
  }

  /** @inheritdoc */
  async changeEmail(id: string, email: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    const current = this.accounts.get(id);
    if (!current) return undefined;
    const owner = this.byEmail.get(email);
    if (owner !== undefined && owner !== id) throw new DuplicateEmailError(email);
    const next = change(structuredClone(current));
    if (!next) return this.get(id);
    this.byEmail.delete(current.Email);
    this.byEmail.set(email, id);
    this.accounts.set(id, structuredClone({ ...next, Id: id, Email: email }));
    return this.get(id);
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    const account = this.accounts.get(id);
    if (!account) return false;
    this.accounts.delete(id);
    this.byEmail.delete(account.Email);
    await this.deleteTokensOf(id);
    return true;
  }

  /** @inheritdoc */
  async list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }> {
    const ids = [...this.accounts.keys()].sort();
    return { accounts: ids.slice(offset, offset + limit).map((id) => structuredClone(this.accounts.get(id) as Account)), total: ids.length };
  }

  /** @inheritdoc */
  async saveToken(hash: string, record: AccessTokenRecord): Promise<void> {
    this.tokens.set(hash, { ...record });
  }

  /** @inheritdoc */
  async getToken(hash: string): Promise<AccessTokenRecord | undefined> {
    const record = this.tokens.get(hash);
    return record && { ...record };
  }

  /** @inheritdoc */
  async deleteToken(hash: string): Promise<void> {
    this.tokens.delete(hash);
  }

  /** @inheritdoc */
  async deleteTokensOf(userId: string, keep?: string): Promise<number> {
    let removed = 0;
    for (const [hash, record] of this.tokens) {
      if (record.UserId === userId && hash !== keep) {
        this.tokens.delete(hash);
        removed++;
      }
    }
    return removed;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    this.accounts.clear();
    this.byEmail.clear();
    this.tokens.clear();
  }
}
