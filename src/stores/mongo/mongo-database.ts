import { randomUUID } from 'node:crypto';
import type { Collection as MongoColl, Db, MongoClient } from 'mongodb';
import { afterContention } from '../../internal/contention';
import { acquireMongoClient, isDuplicateKey, mongoDatabaseTarget } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import {
  checkLimit,
  checkSchema,
  decodeCursor,
  BY_ID,
  indexOf,
  pageOf,
  prefixEnd,
  preparedLegacy,
  storedValue,
  UniqueTakenError,
  valueOfStored,
  valuesOf,
  type Collection,
  type IndexQuery,
  type InsertResult,
  type Page,
  type Schema,
} from '../../core/storage/collection';
import { jsonCopy, type Database } from '../../core/storage/database';

/** A document as stored: its JSON, its expiry (ms; `x` as a date for the TTL index), and the write in progress. */
interface DocRow {
  _id: string;
  d: string;
  e: number | null;
  x?: Date;
  /** Being inserted: invisible until the insert ends. */
  p?: boolean;
  /** The lock of the write in progress: its token and when it lapses (a crashed writer's lock does). */
  l?: { t: string; u: number } | null;
}

/** An index entry: `<index> NUL <stored value> NUL <id>`, so the _id order is (index, value, id). */
interface EntryRow {
  _id: string;
}

/** A unique value's holder: `<index> NUL <stored value>` → the id of the document that has it. */
interface ClaimRow {
  _id: string;
  h: string;
}

/** How long a write's lock lasts: a writer that dies holding it blocks its document this long. */
const LOCK_MS = 30_000;

const entryId = (index: string, value: string, id: string): string => `${index}\u0000${storedValue(value)}\u0000${id}`;
const claimId = (index: string, value: string): string => `${index}\u0000${storedValue(value)}`;

/** The index, value and id an entry names. */
function parseEntry(id: string): { index: string; value: string; id: string } {
  const first = id.indexOf('\u0000');
  const second = id.indexOf('\u0000', first + 1);
  return { index: id.slice(0, first), value: valueOfStored(id.slice(first + 1, second)), id: id.slice(second + 1) };
}

const lockLive = (row: DocRow, now: number): boolean => row.l !== null && row.l !== undefined && row.l.u > now;
const isLive = (row: DocRow | null, now: number): row is DocRow => row !== null && row.p !== true && (row.e === null || row.e > now);

/**
 * One family in MongoDB, on single-document operations only (no transactions, no pipeline
 * updates: a standalone server, a replica set or a compatible service all do): `authgate_<family>`
 * holds the documents, `authgate_<family>_idx` one document per index entry (its _id in lookup
 * order), `authgate_<family>_uniq` one per unique value (the _id's uniqueness decides who holds it).
 * A write locks its document (a lock field set by a conditional update; a waiting writer backs
 * off and tries again, without a bound), adds what the new version needs, writes it, then drops
 * what the old one had. A reader checks every entry against its document, so what a write in
 * progress (or one that died) left behind is never seen.
 */
class MongoCollection<T> implements Collection<T> {
  private readonly docs: MongoColl<DocRow>;
  private readonly entries: MongoColl<EntryRow>;
  private readonly claims: MongoColl<ClaimRow>;
  private preparing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly schema: Schema<T>,
  ) {
    checkSchema(schema);
    this.docs = db.collection<DocRow>(`authgate_${schema.family}`);
    this.entries = db.collection<EntryRow>(`authgate_${schema.family}_idx`);
    this.claims = db.collection<ClaimRow>(`authgate_${schema.family}_uniq`);
  }

  /** The TTL index of a family whose documents expire, then the older store's documents, once. */
  private prepared(): Promise<void> {
    this.preparing ??= (async () => {
      if (this.schema.expiresAt !== undefined) await this.docs.createIndex({ x: 1 }, { expireAfterSeconds: 0 });
      await this.adopt();
    })().catch((err: unknown) => {
      this.preparing = undefined;
      throw err;
    });
    return this.preparing;
  }

  /** Copies the documents of the family's older collection, once for all instances (a marker in `authgate_migrations` says who copies). */
  private async adopt(): Promise<void> {
    const legacy = this.schema.legacy;
    if (legacy?.mongoCollection === undefined) return;
    const markers = this.db.collection<{ _id: string; done: boolean; u: number }>('authgate_migrations');
    const _id = `store:${this.schema.family}`;
    for (let attempt = 0; ; attempt++) {
      const marker = await markers.findOne({ _id });
      if (marker?.done) return;
      const now = Date.now();
      if (marker === null) {
        try {
          await markers.insertOne({ _id, done: false, u: now + LOCK_MS });
          break;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      } else if (marker.u <= now && (await markers.updateOne({ _id, done: false, u: marker.u }, { $set: { u: now + LOCK_MS } })).matchedCount === 1) break;
      await afterContention(attempt);
    }
    const raw = await this.db.collection<Record<string, unknown>>(legacy.mongoCollection).find({}).toArray();
    const docs = raw.map((r) => (legacy.mongoDoc ? legacy.mongoDoc(r) : (r as T)));
    for (const doc of preparedLegacy(this.schema, docs)) await this.insertNow(doc);
    await markers.updateOne({ _id }, { $set: { done: true } });
  }

  ready(): Promise<void> {
    return this.prepared();
  }

  async get(id: string): Promise<T | undefined> {
    await this.prepared();
    const row = await this.docs.findOne({ _id: id });
    return isLive(row, Date.now()) ? (JSON.parse(row.d) as T) : undefined;
  }

  async insert(doc: T): Promise<InsertResult> {
    await this.prepared();
    return this.insertNow(doc);
  }

  private async insertNow(doc: T): Promise<InsertResult> {
    const stored = jsonCopy(doc);
    const id = this.schema.id(stored);
    const token = randomUUID();
    for (;;) {
      const now = Date.now();
      try {
        await this.docs.insertOne({ _id: id, ...this.fields(stored), p: true, l: { t: token, u: now + LOCK_MS } });
        break;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const existing = await this.docs.findOne({ _id: id });
      if (existing === null) continue;
      // An expired document, or an insert whose writer died, gives its id back.
      const gone = existing.p === true ? !lockLive(existing, now) : !isLive(existing, now) && !lockLive(existing, now);
      if (!gone) return { inserted: false, taken: 'id' };
      await this.docs.deleteOne({ _id: id, d: existing.d, l: existing.l ?? null });
    }
    const made: string[] = [];
    for (const index of this.schema.indexes ?? []) {
      if (!index.unique) continue;
      for (const value of valuesOf(index, stored)) {
        if (!(await this.claim(index.name, value, id))) {
          await this.release(made, id);
          await this.docs.deleteOne({ _id: id, 'l.t': token });
          return { inserted: false, taken: index.name };
        }
        made.push(claimId(index.name, value));
      }
    }
    await this.addEntries(this.entryIds(stored, id));
    await this.docs.updateOne({ _id: id, 'l.t': token }, { $unset: { p: '', l: '' } });
    return { inserted: true };
  }

  /** The stored fields of a document. */
  private fields(doc: T): Pick<DocRow, 'd' | 'e' | 'x'> {
    const e = this.schema.expiresAt?.(doc) ?? null;
    return { d: JSON.stringify(doc), e, ...(e === null ? {} : { x: new Date(e) }) };
  }

  private entryIds(doc: T, id: string): string[] {
    return (this.schema.indexes ?? []).flatMap((index) => valuesOf(index, doc).map((value) => entryId(index.name, value, id)));
  }

  private claimIds(doc: T): Array<{ index: string; value: string; key: string }> {
    return (this.schema.indexes ?? []).flatMap((index) => (index.unique ? valuesOf(index, doc).map((value) => ({ index: index.name, value, key: claimId(index.name, value) })) : []));
  }

  private async addEntries(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.entries.insertMany(
        ids.map((_id) => ({ _id })),
        { ordered: false },
      );
    } catch (err) {
      // An entry already there (a write that met this one, or one that died) is the same entry.
      const errors = (err as { writeErrors?: Array<{ code?: number }> }).writeErrors;
      if (!isDuplicateKey(err) && !(Array.isArray(errors) && errors.every((e) => e.code === 11000))) throw err;
    }
  }

  /**
   * Makes `id` the holder of a unique value: `false` when another document holds it. A holder
   * whose document no longer has the value (a write that died between its steps) loses it; one
   * with a write in progress keeps it.
   */
  private async claim(index: string, value: string, id: string): Promise<boolean> {
    const key = claimId(index, value);
    for (;;) {
      try {
        await this.claims.insertOne({ _id: key, h: id });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const claim = await this.claims.findOne({ _id: key });
      if (claim === null) continue;
      if (claim.h === id) return true;
      const holder = await this.docs.findOne({ _id: claim.h });
      const now = Date.now();
      if (holder !== null && (lockLive(holder, now) || (isLive(holder, now) && valuesOf(indexOf(this.schema, index), JSON.parse(holder.d) as T).includes(value)))) return false;
      if ((await this.claims.updateOne({ _id: key, h: claim.h }, { $set: { h: id } })).matchedCount === 1) return true;
    }
  }

  private async release(keys: string[], id: string): Promise<void> {
    for (const key of keys) await this.claims.deleteOne({ _id: key, h: id });
  }

  /** Locks a live document for a write: its row, or `undefined` when there is none. Waits while another write holds it. */
  private async lock(id: string, token: string): Promise<DocRow | undefined> {
    for (let attempt = 0; ; attempt++) {
      const now = Date.now();
      const row = await this.docs.findOneAndUpdate(
        { _id: id, p: { $ne: true }, $or: [{ l: null }, { 'l.u': { $lt: now } }] },
        { $set: { l: { t: token, u: now + LOCK_MS } } },
        { returnDocument: 'after' },
      );
      if (row !== null) return row;
      const current = await this.docs.findOne({ _id: id });
      if (current === null || current.p === true) return undefined;
      await afterContention(attempt);
    }
  }

  async update(id: string, change: (doc: T) => T | undefined): Promise<T | undefined> {
    await this.prepared();
    const token = randomUUID();
    const row = await this.lock(id, token);
    if (row === undefined) return undefined;
    try {
      if (!isLive(row, Date.now())) return undefined;
      const current = JSON.parse(row.d) as T;
      const changed = change(jsonCopy(current));
      if (changed === undefined) return current;
      const next = jsonCopy(changed);
      if (this.schema.id(next) !== id) throw new Error(`storage: an update of ${this.schema.family} changed the id`);
      const had = new Set(this.claimIds(current).map((c) => c.key));
      const made: string[] = [];
      for (const { index, value, key } of this.claimIds(next)) {
        if (had.has(key)) continue;
        if (!(await this.claim(index, value, id))) {
          await this.release(made, id);
          throw new UniqueTakenError(index);
        }
        made.push(key);
      }
      const oldEntries = this.entryIds(current, id);
      const newEntries = this.entryIds(next, id);
      await this.addEntries(newEntries.filter((e) => !oldEntries.includes(e)));
      const { d, e, x } = this.fields(next);
      const written = await this.docs.updateOne({ _id: id, 'l.t': token }, x === undefined ? { $set: { d, e }, $unset: { x: '' } } : { $set: { d, e, x } });
      if (written.matchedCount !== 1) throw new Error(`storage: the write lock of a ${this.schema.family} document lapsed (a write took over ${LOCK_MS} ms)`);
      // Still under the lock: what the old version had goes before another write can add it back.
      const dropped = oldEntries.filter((e) => !newEntries.includes(e));
      if (dropped.length > 0) await this.entries.deleteMany({ _id: { $in: dropped } });
      const keep = new Set(this.claimIds(next).map((c) => c.key));
      await this.release(
        [...had].filter((k) => !keep.has(k)),
        id,
      );
      return jsonCopy(next);
    } finally {
      await this.docs.updateOne({ _id: id, 'l.t': token }, { $unset: { l: '' } });
    }
  }

  async delete(id: string): Promise<T | undefined> {
    await this.prepared();
    const token = randomUUID();
    const row = await this.lock(id, token);
    if (row === undefined) return undefined;
    const current = JSON.parse(row.d) as T;
    try {
      // Entries and values go first, while the document still keeps its id from a new insert.
      const entries = this.entryIds(current, id);
      if (entries.length > 0) await this.entries.deleteMany({ _id: { $in: entries } });
      await this.release(
        this.claimIds(current).map((c) => c.key),
        id,
      );
      await this.docs.deleteOne({ _id: id, 'l.t': token });
    } catch (err) {
      await this.docs.updateOne({ _id: id, 'l.t': token }, { $unset: { l: '' } });
      throw err;
    }
    return isLive({ ...row, l: null }, Date.now()) ? current : undefined;
  }

  /** The entries of `index` from `from` (inclusive, or after a cursor), within the prefix's range. */
  private range(index: string, prefix: string, after: string | undefined): Record<string, string> {
    const start = `${index}\u0000${storedValue(prefix)}`;
    const end = prefixEnd(prefix === '' ? `${index}\u0000` : start);
    const range: Record<string, string> = after === undefined ? { $gte: start } : { $gt: after };
    if (end !== undefined) range.$lt = end;
    return range;
  }

  /** The live documents of these ids that hold the entry each was found by. */
  private async holders(found: Array<{ value: string; id: string }>, index: string): Promise<Array<T | undefined>> {
    const rows = await this.docs.find({ _id: { $in: [...new Set(found.map((f) => f.id))] } }).toArray();
    const byId = new Map(rows.map((r) => [r._id, r]));
    const now = Date.now();
    const spec = indexOf(this.schema, index);
    return found.map(({ value, id }) => {
      const row = byId.get(id) ?? null;
      if (!isLive(row, now)) return undefined;
      const doc = JSON.parse(row.d) as T;
      return valuesOf(spec, doc).includes(value) ? doc : undefined;
    });
  }

  async find(name: string, query: IndexQuery): Promise<Page<T>> {
    await this.prepared();
    indexOf(this.schema, name);
    const limit = checkLimit(query.limit);
    const after = query.after === undefined ? undefined : decodeCursor(query.after);
    if (name === BY_ID) return this.findById(query.prefix, after?.id, limit);
    const rows = await this.entries
      .find({ _id: this.range(name, query.prefix, after && entryId(name, after.value, after.id)) })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
    const found = rows.map((r) => parseEntry(r._id));
    const docs = await this.holders(found, name);
    return pageOf(
      found.map((entry, i) => ({ ...entry, doc: docs[i] })),
      limit,
    );
  }

  /** The ids' range of documents whose id starts with `prefix` (after `after`, when given). */
  private idRange(prefix: string, after: string | undefined): Record<string, string> {
    const range: Record<string, string> = after === undefined ? { $gte: prefix } : { $gt: after };
    const end = prefix === '' ? undefined : prefixEnd(prefix);
    if (end !== undefined) range.$lt = end;
    return range;
  }

  /** A page of the documents themselves in id order (no entries to read). */
  private async findById(prefix: string, after: string | undefined, limit: number): Promise<Page<T>> {
    const rows = await this.docs
      .find({ _id: this.idRange(prefix, after) })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .toArray();
    const now = Date.now();
    return pageOf(
      rows.map((row) => ({ value: row._id, id: row._id, doc: isLive(row, now) ? (JSON.parse(row.d) as T) : undefined })),
      limit,
    );
  }

  async count(name: string, prefix: string): Promise<number> {
    await this.prepared();
    indexOf(this.schema, name);
    if (name === BY_ID) {
      const now = Date.now();
      return this.docs.countDocuments({ _id: this.idRange(prefix, undefined), p: { $ne: true }, $or: [{ e: null }, { e: { $gt: now } }] });
    }
    let n = 0;
    let after: string | undefined;
    for (;;) {
      const rows = await this.entries
        .find({ _id: this.range(name, prefix, after) })
        .sort({ _id: 1 })
        .limit(1000)
        .toArray();
      if (rows.length === 0) return n;
      n += (
        await this.holders(
          rows.map((r) => parseEntry(r._id)),
          name,
        )
      ).filter((d) => d !== undefined).length;
      after = (rows.at(-1) as EntryRow)._id;
    }
  }
}

/**
 * Every family in one MongoDB database (`mongodb`, an optional package): `mongodb://host/db`
 * (the path names the database, `authgate` without one). Works on a standalone server: no
 * transactions are used. One client per connection URI, shared by every store on it.
 */
export class MongoDatabase implements Database {
  private readonly lease: Lease<MongoClient>;
  private readonly db: Db;
  private readonly collections = new Map<string, MongoCollection<unknown>>();

  /**
   * @param uri - `mongodb://` or `mongodb+srv://`.
   * @param options - `db`: the database, where an older store's parameter (`cred_db`, ...) named it. @default the URI's path
   */
  constructor(uri: string, options: { db?: string } = {}) {
    const target = mongoDatabaseTarget(uri);
    this.lease = acquireMongoClient(target.clientUri);
    this.db = this.lease.handle.db(options.db ?? target.db);
  }

  /** @inheritdoc */
  collection<T>(schema: Schema<T>): Collection<T> {
    let found = this.collections.get(schema.family);
    if (found === undefined) {
      found = new MongoCollection(this.db, schema as Schema<unknown>);
      this.collections.set(schema.family, found);
    }
    return found as Collection<T>;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
