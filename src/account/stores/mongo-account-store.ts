import type { Collection, MongoClient } from 'mongodb';
import { isDuplicateKey, parseMongoUri, acquireMongoClient } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import { noopLogger, type Logger } from '../../logger';
import type { Account, LinkedLogin } from '../account';
import { DuplicateEmailError, type AccessTokenRecord, type AccountStore, type LinkOutcome } from '../account-store';
import { planEmailMigration } from '../email-migration';

type AccountDoc = Omit<Account, 'Id'> & { _id: string; _v: number };
interface MetaDoc {
  _id: string;
  value: string;
}
/** A linked login, keyed by its user id (so one account at most). */
interface LoginDoc {
  _id: string;
  AccountId: string;
  Provider: string;
  Name: string;
  Linked: Date;
}
interface TokenDoc {
  _id: string;
  UserId: string;
  Expires: Date;
}

const UPDATE_ATTEMPTS = 8;

/**
 * Accounts in MongoDB, shared by every instance: `mongodb://host/db?acc_db=&acc_coll=` (tokens
 * in `<acc_coll>_tokens`, linked logins in `<acc_coll>_logins`, keyed by the login). A unique
 * index on Email makes racing sign-ups create one account;
 * updates are optimistic (a version field, retried); expired tokens go through a TTL index.
 */
export class MongoAccountStore implements AccountStore {
  private readonly client: MongoClient;
  private readonly lease: Lease<MongoClient>;
  private readonly accounts: Collection<AccountDoc>;
  private readonly tokens: Collection<TokenDoc>;
  private readonly meta: Collection<MetaDoc>;
  private readonly logins: Collection<LoginDoc>;
  private readonly logger: Logger;
  private indexed: Promise<unknown> | undefined;

  /**
   * @param uri - `mongodb://...` with optional `acc_db` and `acc_coll` (default `accounts`).
   * @param options - `logger` hears about e-mail spellings merged when an older store is opened.
   */
  constructor(uri: string, options: { logger?: Logger } = {}) {
    const target = parseMongoUri(uri, 'acc', 'accounts');
    this.lease = acquireMongoClient(target.clientUri);
    this.client = this.lease.handle;
    const db = this.client.db(target.db);
    this.accounts = db.collection<AccountDoc>(target.coll);
    this.tokens = db.collection<TokenDoc>(`${target.coll}_tokens`);
    this.meta = db.collection<MetaDoc>(`${target.coll}_meta`);
    this.logins = db.collection<LoginDoc>(`${target.coll}_logins`);
    this.logger = options.logger ?? noopLogger;
  }

  private ready(): Promise<unknown> {
    this.indexed ??= Promise.all([
      this.accounts.createIndex({ Email: 1 }, { unique: true }),
      this.tokens.createIndex({ Expires: 1 }, { expireAfterSeconds: 0 }),
      this.tokens.createIndex({ UserId: 1 }),
      this.logins.createIndex({ AccountId: 1 }),
    ])
      .then(() => this.migrateEmails())
      .catch((err: unknown) => {
        this.indexed = undefined;
        throw err;
      });
    return this.indexed;
  }

  /** Once per store: e-mails written by older versions move to the canonical form (idempotent, so instances may race). */
  private async migrateEmails(): Promise<void> {
    if ((await this.meta.findOne({ _id: 'email-form' }))?.value === 'canonical-1') return;
    const docs = await this.accounts.find({}, { projection: { Email: 1, Approved: 1, JoinDay: 1, LastActivity: 1 } }).toArray();
    const plan = planEmailMigration(docs.map((d) => ({ Id: d._id, Email: d.Email, Approved: d.Approved, JoinDay: d.JoinDay, LastActivity: d.LastActivity })));
    for (const { id } of plan.deletes) {
      await this.accounts.deleteOne({ _id: id, Approved: false });
      await this.tokens.deleteMany({ UserId: id });
      this.logger.logf('[INFO] account store: unactivated sign-up %s dropped: another account has the same canonical e-mail', id);
    }
    for (const { id, to } of plan.renames) await this.accounts.updateOne({ _id: id }, { $set: { Email: to }, $inc: { _v: 1 } });
    for (const { id, kept } of plan.unindexed) {
      this.logger.logf('[WARN] account store: account %s has the same canonical e-mail as account %s, which keeps it; %s stays reachable by id', id, kept, id);
    }
    await this.meta.updateOne({ _id: 'email-form' }, { $set: { value: 'canonical-1' } }, { upsert: true });
  }

  private static toAccount(doc: AccountDoc | null): Account | undefined {
    if (!doc) return undefined;
    const { _id, _v: _version, ...rest } = doc;
    return { ...rest, Id: _id };
  }

  /** @inheritdoc */
  async create(account: Account): Promise<void> {
    await this.ready();
    const { Id, ...rest } = account;
    try {
      await this.accounts.insertOne({ ...rest, _id: Id, _v: 0 });
    } catch (err) {
      if (isDuplicateKey(err)) throw new DuplicateEmailError(account.Email);
      throw err;
    }
  }

  /** @inheritdoc */
  async get(id: string): Promise<Account | undefined> {
    await this.ready();
    return MongoAccountStore.toAccount(await this.accounts.findOne({ _id: id }));
  }

  /** @inheritdoc */
  async getByEmail(email: string): Promise<Account | undefined> {
    await this.ready();
    return MongoAccountStore.toAccount(await this.accounts.findOne({ Email: email }));
  }

  /** @inheritdoc */
  update(id: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    return this.rewrite(id, change, undefined);
  }

  /** @inheritdoc */
  async list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }> {
    const [docs, total] = await Promise.all([this.accounts.find().sort({ _id: 1 }).skip(offset).limit(limit).toArray(), this.accounts.countDocuments()]);
    return { accounts: docs.map((d) => MongoAccountStore.toAccount(d) as Account), total };
  }

  /** @inheritdoc */
  async saveToken(hash: string, record: AccessTokenRecord): Promise<void> {
    await this.ready();
    await this.tokens.replaceOne({ _id: hash }, { UserId: record.UserId, Expires: new Date(record.Expires) }, { upsert: true });
  }

  /** @inheritdoc */
  async getToken(hash: string): Promise<AccessTokenRecord | undefined> {
    const doc = await this.tokens.findOne({ _id: hash });
    return doc ? { UserId: doc.UserId, Expires: doc.Expires.toISOString() } : undefined;
  }

  /** @inheritdoc */
  async deleteToken(hash: string): Promise<void> {
    await this.tokens.deleteOne({ _id: hash });
  }

  /** @inheritdoc */
  async changeEmail(id: string, email: string, change: (account: Account) => Account | undefined): Promise<Account | undefined> {
    try {
      return await this.rewrite(id, change, email);
    } catch (err) {
      // The unique index on Email decides between racing moves and sign-ups to one address.
      if (isDuplicateKey(err)) throw new DuplicateEmailError(email);
      throw err;
    }
  }

  /** Read, change, replace if the version is still the one read (else again): `update`, and with `email` a move to it. */
  private async rewrite(id: string, change: (account: Account) => Account | undefined, email: string | undefined): Promise<Account | undefined> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const doc = await this.accounts.findOne({ _id: id });
      const current = MongoAccountStore.toAccount(doc);
      if (!doc || !current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, Id: id, Email: email ?? current.Email };
      const { Id: _id, ...rest } = saved;
      const result = await this.accounts.replaceOne({ _id: id, _v: doc._v }, { ...rest, _v: doc._v + 1 });
      if (result.modifiedCount === 1) return saved;
    }
    throw new Error('account update kept conflicting');
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    const { deletedCount } = await this.accounts.deleteOne({ _id: id });
    await this.deleteTokensOf(id);
    await this.logins.deleteMany({ AccountId: id });
    return deletedCount === 1;
  }

  /** @inheritdoc */
  async linkLogin(accountId: string, login: LinkedLogin, max: number): Promise<LinkOutcome> {
    await this.ready();
    if (!(await this.accounts.findOne({ _id: accountId }, { projection: { _id: 1 } }))) return 'no-account';
    const owner = async (): Promise<LinkOutcome> => ((await this.accountOfLogin(login.UserId)) === accountId ? 'already' : 'taken');
    if ((await this.accountOfLogin(login.UserId)) !== undefined) return owner();
    // Without transactions the limit is a soft bound under races; the key on the login is exact.
    if ((await this.logins.countDocuments({ AccountId: accountId })) >= max) return 'full';
    try {
      await this.logins.insertOne({ _id: login.UserId, AccountId: accountId, Provider: login.Provider, Name: login.Name, Linked: new Date(login.Linked) });
    } catch (err) {
      if (isDuplicateKey(err)) return owner();
      throw err;
    }
    // An account deleted meanwhile takes its new link along.
    if (!(await this.accounts.findOne({ _id: accountId }, { projection: { _id: 1 } }))) {
      await this.logins.deleteOne({ _id: login.UserId, AccountId: accountId });
      return 'no-account';
    }
    return 'linked';
  }

  /** @inheritdoc */
  async unlinkLogin(accountId: string, userId: string): Promise<boolean> {
    await this.ready();
    return (await this.logins.deleteOne({ _id: userId, AccountId: accountId })).deletedCount === 1;
  }

  /** @inheritdoc */
  async loginsOf(accountId: string): Promise<LinkedLogin[]> {
    await this.ready();
    const docs = await this.logins.find({ AccountId: accountId }).sort({ Linked: 1, _id: 1 }).toArray();
    return docs.map((d) => ({ UserId: d._id, Provider: d.Provider, Name: d.Name, Linked: d.Linked.toISOString() }));
  }

  /** @inheritdoc */
  async accountOfLogin(userId: string): Promise<string | undefined> {
    await this.ready();
    return (await this.logins.findOne({ _id: userId }))?.AccountId;
  }

  /** @inheritdoc */
  async deleteTokensOf(userId: string, keep?: string): Promise<number> {
    const result = await this.tokens.deleteMany(keep ? { UserId: userId, _id: { $ne: keep } } : { UserId: userId });
    return result.deletedCount;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
