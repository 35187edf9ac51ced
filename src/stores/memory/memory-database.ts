import {
  checkLimit,
  checkSchema,
  decodeCursor,
  encodeCursor,
  BY_ID,
  indexOf,
  type IndexSpec,
  isExpired,
  UniqueTakenError,
  valuesOf,
  type Collection,
  type IndexQuery,
  type InsertResult,
  type Page,
  type Schema,
} from '../../core/storage/collection';
import { jsonCopy, type Database } from '../../core/storage/database';

/** An index entry: a value and the id of the document it belongs to. */
interface Entry {
  value: string;
  id: string;
}

/** Code-unit order of entries, by value then id. */
function byEntry(a: Entry, b: Entry): number {
  return compare(a.value, b.value) || compare(a.id, b.id);
}

/** The first position in sorted `entries` whose entry is not before `probe` (or, with `strictly`, after it). */
function lowerBound(entries: readonly Entry[], probe: Entry, strictly = false): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = byEntry(entries[mid] as Entry, probe);
    if (order < 0 || (strictly && order === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One family in memory: documents by id, each index as a sorted array of entries, each unique index's values. */
class MemoryCollection<T> implements Collection<T> {
  private readonly docs = new Map<string, T>();
  private readonly entries = new Map<string, Entry[]>();
  private readonly unique = new Map<string, Map<string, string>>();
  /** The schema's indexes and the id order every family has. */
  private readonly indexes: ReadonlyArray<IndexSpec<T>>;

  constructor(private readonly schema: Schema<T>) {
    this.indexes = [indexOf(schema, BY_ID), ...(schema.indexes ?? [])];
    for (const index of this.indexes) {
      this.entries.set(index.name, []);
      if (index.unique) this.unique.set(index.name, new Map());
    }
  }

  private live(id: string): T | undefined {
    const doc = this.docs.get(id);
    if (doc === undefined || !isExpired(this.schema, doc)) return doc;
    this.remove(id, doc);
    return undefined;
  }

  private remove(id: string, doc: T): void {
    this.docs.delete(id);
    for (const index of this.indexes) {
      const sorted = this.entries.get(index.name) as Entry[];
      const taken = this.unique.get(index.name);
      for (const value of valuesOf(index, doc)) {
        const at = lowerBound(sorted, { value, id });
        if (sorted[at]?.value === value && sorted[at]?.id === id) sorted.splice(at, 1);
        if (taken?.get(value) === id) taken.delete(value);
      }
    }
  }

  /** The unique index a document would find taken (by a live document other than `id`). */
  private takenBy(doc: T, id: string): string | undefined {
    for (const index of this.indexes) {
      const taken = this.unique.get(index.name);
      if (!taken) continue;
      for (const v of valuesOf(index, doc)) {
        const holder = taken.get(v);
        if (holder !== undefined && holder !== id && this.live(holder) !== undefined) return index.name;
      }
    }
    return undefined;
  }

  private put(id: string, doc: T): void {
    const old = this.docs.get(id);
    if (old !== undefined) this.remove(id, old);
    this.docs.set(id, doc);
    for (const index of this.indexes) {
      const sorted = this.entries.get(index.name) as Entry[];
      const taken = this.unique.get(index.name);
      for (const value of valuesOf(index, doc)) {
        sorted.splice(lowerBound(sorted, { value, id }), 0, { value, id });
        taken?.set(value, id);
      }
    }
  }

  async ready(): Promise<void> {}

  async get(id: string): Promise<T | undefined> {
    const doc = this.live(id);
    return doc === undefined ? undefined : jsonCopy(doc);
  }

  async insert(doc: T): Promise<InsertResult> {
    const stored = jsonCopy(doc);
    const id = this.schema.id(stored);
    if (this.live(id) !== undefined) return { inserted: false, taken: 'id' };
    const taken = this.takenBy(stored, id);
    if (taken !== undefined) return { inserted: false, taken };
    this.put(id, stored);
    return { inserted: true };
  }

  async update(id: string, change: (doc: T) => T | undefined): Promise<T | undefined> {
    const current = this.live(id);
    if (current === undefined) return undefined;
    const next = change(jsonCopy(current));
    if (next === undefined) return jsonCopy(current);
    const stored = jsonCopy(next);
    if (this.schema.id(stored) !== id) throw new Error(`storage: an update of ${this.schema.family} changed the id`);
    const taken = this.takenBy(stored, id);
    if (taken !== undefined) throw new UniqueTakenError(taken);
    this.put(id, stored);
    return jsonCopy(stored);
  }

  async delete(id: string): Promise<T | undefined> {
    const doc = this.live(id);
    if (doc === undefined) return undefined;
    this.remove(id, doc);
    return doc;
  }

  async find(name: string, query: IndexQuery): Promise<Page<T>> {
    indexOf(this.schema, name);
    const limit = checkLimit(query.limit);
    const sorted = this.entries.get(name) as Entry[];
    const after = query.after === undefined ? undefined : decodeCursor(query.after);
    let at = after === undefined ? lowerBound(sorted, { value: query.prefix, id: '' }) : lowerBound(sorted, after, true);
    const docs: T[] = [];
    const values: string[] = [];
    let last: Entry | undefined;
    for (; at < sorted.length; at++) {
      const entry = sorted[at] as Entry;
      if (!entry.value.startsWith(query.prefix)) {
        if (entry.value > query.prefix) break;
        continue;
      }
      const doc = this.docs.get(entry.id) as T;
      if (isExpired(this.schema, doc)) continue;
      if (docs.length === limit) return { docs, values, next: last && encodeCursor(last.value, last.id) };
      docs.push(jsonCopy(doc));
      values.push(entry.value);
      last = entry;
    }
    return { docs, values, next: undefined };
  }

  async count(name: string, prefix: string): Promise<number> {
    indexOf(this.schema, name);
    const sorted = this.entries.get(name) as Entry[];
    let n = 0;
    for (let at = lowerBound(sorted, { value: prefix, id: '' }); at < sorted.length; at++) {
      const entry = sorted[at] as Entry;
      if (!entry.value.startsWith(prefix)) break;
      if (!isExpired(this.schema, this.docs.get(entry.id) as T)) n++;
    }
    return n;
  }
}

/** Code-unit order, as every other adapter sorts (binary collation). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every family in this process's memory: for tests and trying things; nothing survives a restart. */
export class MemoryDatabase implements Database {
  private readonly collections = new Map<string, MemoryCollection<unknown>>();

  /** @inheritdoc */
  collection<T>(schema: Schema<T>): Collection<T> {
    checkSchema(schema);
    let found = this.collections.get(schema.family);
    if (found === undefined) {
      found = new MemoryCollection(schema as Schema<unknown>);
      this.collections.set(schema.family, found);
    }
    return found as Collection<T>;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    this.collections.clear();
  }
}
