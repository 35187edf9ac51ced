import type { Account, LinkedLogin } from '../account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore, type LinkOutcome } from '../account-store';

/** Accounts in process memory: for tests and trials (nothing survives a restart). */
export class MemoryAccountStore implements AccountStore {
  private readonly accounts = new Map<string, Account>();
  private readonly byEmail = new Map<string, string>();
  private readonly tokens = new Map<string, AccessTokenRecord>();
  /** Linked logins: user id → the link and its account. */
  private readonly links = new Map<string, LinkedLogin & { AccountId: string }>();

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
    for (const [userId, link] of this.links) if (link.AccountId === id) this.links.delete(userId);
    return true;
  }

  /** @inheritdoc */
  async linkLogin(accountId: string, login: LinkedLogin, max: number): Promise<LinkOutcome> {
    if (!this.accounts.has(accountId)) return 'no-account';
    const owner = this.links.get(login.UserId)?.AccountId;
    if (owner !== undefined) return owner === accountId ? 'already' : 'taken';
    if (this.linksOf(accountId).length >= max) return 'full';
    this.links.set(login.UserId, { ...login, AccountId: accountId });
    return 'linked';
  }

  /** @inheritdoc */
  async unlinkLogin(accountId: string, userId: string): Promise<boolean> {
    if (this.links.get(userId)?.AccountId !== accountId) return false;
    return this.links.delete(userId);
  }

  /** @inheritdoc */
  async loginsOf(accountId: string): Promise<LinkedLogin[]> {
    return this.linksOf(accountId).map(({ AccountId: _account, ...login }) => login);
  }

  private linksOf(accountId: string): Array<LinkedLogin & { AccountId: string }> {
    return [...this.links.values()].filter((l) => l.AccountId === accountId);
  }

  /** @inheritdoc */
  async accountOfLogin(userId: string): Promise<string | undefined> {
    return this.links.get(userId)?.AccountId;
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
    this.links.clear();
  }
}
