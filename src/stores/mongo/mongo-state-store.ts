import type { Collection, MongoClient } from 'mongodb';
import { afterContention } from '../../internal/contention';
import { isDuplicateKey, parseMongoUri, acquireMongoClient } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import type { Subscription } from '../../core/state/state-store';
import { BaseStateStore, type StateEntry } from '../../core/state/base-state-store';

interface StateDoc {
  _id: string;
  v: string;
  u: Date;
  /** A counter's value (counted with `$inc`; `v` then holds its first value only). */
  n?: number;
}

/** The entry a document holds. */
const entryOf = (doc: StateDoc): StateEntry => ({ value: doc.n === undefined ? doc.v : String(doc.n), until: doc.u.getTime() });

/** A group member: `_id` is group NUL member, `g` the group (indexed). */
interface MemberDoc extends StateDoc {
  g: string;
}

/**
 * State in MongoDB, shared by every instance: `mongodb://host/db?state_db=&state_coll=`. Only
 * single-document atomic operations are used, so two processes never both consume a token; a
 * TTL index removes expired documents (reads also ignore them, since the TTL monitor is lazy).
 */
export class MongoStateStore extends BaseStateStore {
  private readonly client: MongoClient;
  private readonly lease: Lease<MongoClient>;
  private readonly coll: Collection<StateDoc>;
  private readonly memberColl: Collection<MemberDoc>;
  private indexed: Promise<unknown> | undefined;

  /** @param uri - `mongodb://...` with optional `state_db` and `state_coll` (default `state`). */
  constructor(uri: string) {
    super();
    const target = parseMongoUri(uri, 'state', 'state');
    this.lease = acquireMongoClient(target.clientUri);
    this.client = this.lease.handle;
    this.coll = this.client.db(target.db).collection<StateDoc>(target.coll);
    this.memberColl = this.client.db(target.db).collection<MemberDoc>(`${target.coll}_members`);
  }

  private ready(): Promise<unknown> {
    this.indexed ??= Promise.all([
      this.coll.createIndex({ u: 1 }, { expireAfterSeconds: 0 }),
      this.memberColl.createIndex({ u: 1 }, { expireAfterSeconds: 0 }),
      this.memberColl.createIndex({ g: 1 }),
    ]).catch((err: unknown) => {
      this.indexed = undefined;
      throw err;
    });
    return this.indexed;
  }

  protected override async write(key: string, entry: StateEntry): Promise<void> {
    await this.ready();
    await this.coll.updateOne({ _id: key }, { $set: { v: entry.value, u: new Date(entry.until) }, $unset: { n: '' } }, { upsert: true });
  }

  protected override async read(key: string, now: number): Promise<StateEntry | undefined> {
    const doc = await this.coll.findOne({ _id: key, u: { $gt: new Date(now) } });
    return doc ? entryOf(doc) : undefined;
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    await this.ready();
    try {
      // Matches only an expired document; an unexpired one makes the upsert collide on _id.
      await this.coll.updateOne({ _id: key, u: { $lte: new Date(now) } }, { $set: { v: entry.value, u: new Date(entry.until) }, $unset: { n: '' } }, { upsert: true });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  protected override async remove(key: string, now: number): Promise<StateEntry | undefined> {
    const filter = Number.isFinite(now) ? { _id: key, u: { $gt: new Date(now) } } : { _id: key };
    const doc = await this.coll.findOneAndDelete(filter);
    if (!Number.isFinite(now)) return undefined;
    return doc ? entryOf(doc) : undefined;
  }

  protected override async add(key: string, fresh: StateEntry, now: number): Promise<number> {
    await this.ready();
    // Operators only (no pipeline update): a live counter counts with $inc; a live value that is
    // no counter yet becomes one in a conditional write; else a fresh one replaces the expired.
    for (let attempt = 0; ; attempt++) {
      const counted = await this.coll.findOneAndUpdate({ _id: key, u: { $gt: new Date(now) }, n: { $exists: true } }, { $inc: { n: 1 } }, { returnDocument: 'after' });
      if (counted) return counted.n as number;
      const live = await this.coll.findOne({ _id: key, u: { $gt: new Date(now) } });
      if (live) {
        const next = Number(JSON.parse(live.v)) + 1;
        if ((await this.coll.updateOne({ _id: key, v: live.v, u: live.u, n: { $exists: false } }, { $set: { n: next } })).matchedCount === 1) return next;
      } else {
        try {
          await this.coll.updateOne({ _id: key, u: { $lte: new Date(now) } }, { $set: { v: fresh.value, n: 1, u: new Date(fresh.until) } }, { upsert: true });
          return 1;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      await afterContention(attempt);
    }
  }

  protected override async writeMember(group: string, member: string, entry: StateEntry): Promise<void> {
    await this.ready();
    await this.memberColl.updateOne({ _id: `${group}\u0000${member}` }, { $set: { g: group, v: entry.value, u: new Date(entry.until) } }, { upsert: true });
  }

  protected override async readMembers(group: string, now: number): Promise<Array<[string, StateEntry]>> {
    const docs = await this.memberColl.find({ g: group, u: { $gt: new Date(now) } }).toArray();
    return docs.map((doc) => [doc._id.slice(group.length + 1), { value: doc.v, until: doc.u.getTime() }]);
  }

  protected override async removeMember(group: string, member: string): Promise<void> {
    await this.memberColl.deleteOne({ _id: `${group}\u0000${member}` });
  }

  /** MongoDB has no pub/sub here: nothing is delivered, and `every-request` revocation reads the store each time. */
  override async publish(): Promise<void> {}

  /** Never live (see {@link MongoStateStore.publish}). */
  override subscribe(): Subscription {
    return { live: false, close: async () => undefined };
  }

  protected override async release(): Promise<void> {
    await this.lease.release();
  }
}
