import { noopLogger, type Logger } from '../../plugin-kit/helpers';
import { BY_ID, everyDoc, replaceDoc, UniqueTakenError, type Collection, type Database, Repository } from '../../plugin-kit/storage';
import type { Account, LinkedLogin } from './account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore, type LinkOutcome } from './account-store';
import { ACCOUNT_LOGINS, ACCOUNT_TOKENS, accountSchema, linksOf, tokensOf, type StoredAccessToken, type StoredLink } from './account-schema';

/**
 * The account service's store on any database adapter: the families accounts (the e-mail
 * unique, so of racing sign-ups one wins), account_tokens (hashes only, gone when they expire) and
 * account_logins (keyed by the login, so a login is linked to one account at most).
 */
export class AccountRepository extends Repository<Account> implements AccountStore {
  private readonly tokens: Collection<StoredAccessToken>;
  private readonly links: Collection<StoredLink>;

  /**
   * @param database - where the families live; closed with the store.
   * @param logger - hears about e-mails moved to the canonical form when an older store's accounts are copied.
   */
  constructor(database: Database, logger: Logger = noopLogger) {
    super(database, accountSchema(logger));
    this.tokens = database.collection(ACCOUNT_TOKENS);
    this.links = database.collection(ACCOUNT_LOGINS);
  }

  /** @inheritdoc */
  async create(account: Account): Promise<void> {
    const result = await this.docs.insert(account);
    if (result.inserted) return;
    if (result.taken === 'email') throw new DuplicateEmailError(account.Email);
    throw new Error(`account id ${account.Id} is taken`);
  }

  /** @inheritdoc */
  async getByEmail(email: string): Promise<Account | undefined> {
    const page = await this.docs.find('email', { prefix: email, limit: 1 });
    return page.values[0] === email ? page.docs[0] : undefined;
  }

  /** @inheritdoc */
  update(id: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    return this.docs.update(id, (current) => {
      const next = change(current);
      return next && { ...next, Id: id, Email: current.Email };
    });
  }

  /** @inheritdoc */
  async changeEmail(id: string, email: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    try {
      return await this.docs.update(id, (current) => {
        const next = change(current);
        return next && { ...next, Id: id, Email: email };
      });
    } catch (err) {
      if (err instanceof UniqueTakenError) throw new DuplicateEmailError(email);
      throw err;
    }
  }

  /** @inheritdoc */
  override async delete(id: string): Promise<boolean> {
    if ((await this.docs.delete(id)) === undefined) return false;
    // The account goes first: a link made meanwhile sees it gone and takes itself back (see linkLogin).
    await this.deleteTokensOf(id);
    for await (const link of everyDoc(this.links, 'account', linksOf(id))) await this.links.delete(link.UserId);
    return true;
  }

  /** @inheritdoc */
  async linkLogin(accountId: string, login: LinkedLogin, max: number): Promise<LinkOutcome> {
    if ((await this.docs.get(accountId)) === undefined) return 'no-account';
    const { inserted } = await this.links.insert({ UserId: login.UserId, Provider: login.Provider, Name: login.Name, Linked: login.Linked, AccountId: accountId });
    if (!inserted) return (await this.accountOfLogin(login.UserId)) === accountId ? 'already' : 'taken';
    // Counted after the insert: of racing links past the bound, none stays (never more than max).
    const outcome = (await this.links.count('account', linksOf(accountId))) > max ? 'full' : (await this.docs.get(accountId)) === undefined ? 'no-account' : 'linked';
    if (outcome !== 'linked') await this.unlinkLogin(accountId, login.UserId);
    return outcome;
  }

  /** @inheritdoc */
  async unlinkLogin(accountId: string, userId: string): Promise<boolean> {
    if ((await this.accountOfLogin(userId)) !== accountId) return false;
    return (await this.links.delete(userId)) !== undefined;
  }

  /** @inheritdoc */
  async loginsOf(accountId: string): Promise<LinkedLogin[]> {
    const links: LinkedLogin[] = [];
    for await (const { UserId, Provider, Name, Linked } of everyDoc(this.links, 'account', linksOf(accountId))) links.push({ UserId, Provider, Name, Linked });
    return links;
  }

  /** @inheritdoc */
  async accountOfLogin(userId: string): Promise<string | undefined> {
    return (await this.links.get(userId))?.AccountId;
  }

  /** @inheritdoc */
  async list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }> {
    const accounts: Account[] = [];
    if (limit > 0) {
      let seen = 0;
      for await (const account of everyDoc(this.docs, BY_ID, '')) {
        if (seen++ < offset) continue;
        accounts.push(account);
        if (accounts.length === limit) break;
      }
    }
    return { accounts, total: await this.docs.count(BY_ID, '') };
  }

  /** @inheritdoc */
  async saveToken(hash: string, record: AccessTokenRecord): Promise<void> {
    await replaceDoc(this.tokens, hash, { Hash: hash, UserId: record.UserId, Expires: record.Expires });
  }

  /** @inheritdoc */
  async getToken(hash: string): Promise<AccessTokenRecord | undefined> {
    const token = await this.tokens.get(hash);
    return token && { UserId: token.UserId, Expires: token.Expires };
  }

  /** @inheritdoc */
  async deleteToken(hash: string): Promise<void> {
    await this.tokens.delete(hash);
  }

  /** @inheritdoc */
  async deleteTokensOf(userId: string, keep?: string): Promise<number> {
    const hashes: string[] = [];
    for await (const token of everyDoc(this.tokens, 'user', tokensOf(userId))) if (token.Hash !== keep) hashes.push(token.Hash);
    let gone = 0;
    for (const hash of hashes) if ((await this.tokens.delete(hash)) !== undefined) gone++;
    return gone;
  }
}
