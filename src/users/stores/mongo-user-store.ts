import type { Collection, MongoClient } from 'mongodb';
import { parseMongoUri, acquireMongoClient } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import { KEY_END, sameSearchKeys, searchEntries, stillListed, type SearchKeyKind } from '../search-keys';
import type { UserRecord, UserStore, UserStoreQuery, UserStorePage } from '../user-store';

type UserDoc = Omit<UserRecord, 'id'> & { _id: string; _v: number };
interface KeyDoc {
  _id: string;
  key: string;
  id: string;
  kind: SearchKeyKind;
  other: string | null;
}

const UPDATE_ATTEMPTS = 8;

function toUser(doc: UserDoc | null): UserRecord | undefined {
  if (!doc) return undefined;
  const { _id, _v: _version, ...rest } = doc;
  return { ...rest, id: _id };
}

/**
 * Users in MongoDB, shared by every instance: `mongodb://host/db?user_db=&user_coll=` (collection
 * `users`, and `<coll>_keys` for the search index). Updates are optimistic (a version field,
 * retried); the index is written after the user, so a list checks each entry against its user.
 */
export class MongoUserStore implements UserStore {
  private readonly client: MongoClient;
  private readonly lease: Lease<MongoClient>;
  private readonly users: Collection<UserDoc>;
  private readonly keys: Collection<KeyDoc>;
  private indexed: Promise<unknown> | undefined;

  /** @param uri - `mongodb://...` with optional `user_db` and `user_coll`. */
  constructor(uri: string) {
    const target = parseMongoUri(uri, 'user', 'users');
    this.lease = acquireMongoClient(target.clientUri);
    this.client = this.lease.handle;
    const db = this.client.db(target.db);
    this.users = db.collection<UserDoc>(target.coll);
    this.keys = db.collection<KeyDoc>(`${target.coll}_keys`);
  }

  private ready(): Promise<unknown> {
    this.indexed ??= Promise.all([this.keys.createIndex({ key: 1, id: 1 }), this.keys.createIndex({ id: 1 })]).catch((err: unknown) => {
      this.indexed = undefined;
      throw err;
    });
    return this.indexed;
  }

  private async writeKeys(user: UserRecord): Promise<void> {
    const entries = searchEntries(user);
    await this.keys.deleteMany({ id: user.id, _id: { $nin: entries.map((e) => `${e.kind}:${e.key}:${e.id}`) } });
    for (const e of entries) {
      await this.keys.replaceOne({ _id: `${e.kind}:${e.key}:${e.id}` }, { key: e.key, id: e.id, kind: e.kind, other: e.other ?? null }, { upsert: true });
    }
  }

  /** @inheritdoc */
  async add(user: UserRecord): Promise<boolean> {
    await this.ready();
    const { id, ...rest } = user;
    const result = await this.users.updateOne({ _id: id }, { $setOnInsert: { ...rest, _v: 0 } }, { upsert: true });
    if (result.upsertedCount !== 1) return false;
    await this.writeKeys(user);
    return true;
  }

  /** @inheritdoc */
  async get(id: string): Promise<UserRecord | undefined> {
    await this.ready();
    return toUser(await this.users.findOne({ _id: id }));
  }

  /** @inheritdoc */
  async update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined> {
    await this.ready();
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const doc = await this.users.findOne({ _id: id });
      const current = toUser(doc);
      if (!doc || !current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, id };
      const { id: _id, ...rest } = saved;
      const result = await this.users.replaceOne({ _id: id, _v: doc._v }, { ...rest, _v: doc._v + 1 });
      if (result.modifiedCount === 1) {
        if (!sameSearchKeys(current, saved)) await this.writeKeys(saved);
        return saved;
      }
    }
    throw new Error('user update kept conflicting');
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    const deleted = (await this.users.deleteOne({ _id: id })).deletedCount === 1;
    await this.keys.deleteMany({ id });
    return deleted;
  }

  /** @inheritdoc */
  async list(query: UserStoreQuery): Promise<UserStorePage> {
    await this.ready();
    const take = query.limit + 1;
    if (query.prefix === undefined) {
      const docs = await this.users
        .find(query.after ? { _id: { $gt: query.after.id } } : {})
        .sort({ _id: 1 })
        .limit(take)
        .toArray();
      const users = docs.slice(0, query.limit).map((d) => toUser(d) as UserRecord);
      return { users, next: docs.length > query.limit ? { id: (users[users.length - 1] as UserRecord).id } : undefined };
    }
    const prefix = query.prefix;
    const after = query.after;
    const range = { key: { $gte: prefix, $lt: prefix + KEY_END } };
    const position = after ? { $or: [{ key: { $gt: after.key ?? '' } }, { key: after.key ?? '', id: { $gt: after.id } }] } : {};
    const listed = { $or: [{ kind: 'name' as const }, { other: null }, { other: { $not: { $gte: prefix, $lt: prefix + KEY_END } } }] };
    const users: UserRecord[] = [];
    let lastPos: { key: string; id: string } | undefined;
    let more = false;
    // Entries whose user changed since (the index lags the user by a moment) are skipped, so a page may take more reads.
    for await (const entry of this.keys.find({ $and: [range, position, listed] }).sort({ key: 1, id: 1 })) {
      if (users.length === query.limit) {
        more = true;
        break;
      }
      const user = toUser(await this.users.findOne({ _id: entry.id }));
      if (!user || !stillListed(user, entry)) continue;
      users.push(user);
      lastPos = { key: entry.key, id: entry.id };
    }
    return { users, next: more ? lastPos : undefined };
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
