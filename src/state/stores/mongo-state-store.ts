import type { Collection, MongoClient } from 'mongodb';
import { isDuplicateKey, parseMongoUri, acquireMongoClient } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import type { Subscription } from '../state-store';
import { BaseStateStore, type StateEntry } from './base-state-store';

interface StateDoc {
  _id: string;
  v: string;
  u: Date;
}

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
    await this.coll.updateOne({ _id: key }, { $set: { v: entry.value, u: new Date(entry.until) } }, { upsert: true });
  }

  protected override async read(key: string, now: number): Promise<StateEntry | undefined> {
    const doc = await this.coll.findOne({ _id: key, u: { $gt: new Date(now) } });
    return doc ? { value: doc.v, until: doc.u.getTime() } : undefined;
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    await this.ready();
    try {
      // Matches only an expired document; an unexpired one makes the upsert collide on _id.
      await this.coll.updateOne({ _id: key, u: { $lte: new Date(now) } }, { $set: { v: entry.value, u: new Date(entry.until) } }, { upsert: true });
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
    return doc ? { value: doc.v, until: doc.u.getTime() } : undefined;
  }

  protected override async add(key: string, fresh: StateEntry, now: number): Promise<number> {
    await this.ready();
    for (let attempt = 0; attempt < 3; attempt++) {
      const live = await this.coll.findOneAndUpdate({ _id: key, u: { $gt: new Date(now) } }, [{ $set: { v: { $toString: { $add: [{ $toInt: '$v' }, 1] } } } }], { returnDocument: 'after' });
      if (live) return Number(live.v);
      // Absent or expired: replace an expired one, or insert; a racing insert makes us count again.
      try {
        await this.coll.updateOne({ _id: key, u: { $lte: new Date(now) } }, { $set: { v: fresh.value, u: new Date(fresh.until) } }, { upsert: true });
        return 1;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
    }
    throw new Error('state store counter kept conflicting');
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
