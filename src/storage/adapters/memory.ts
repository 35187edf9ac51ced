import {
  checkLimit,
  checkSchema,
  decodeCursor,
  encodeCursor,
  indexOf,
  isExpired,
  UniqueTakenError,
  valuesOf,
  type Collection,
  type IndexQuery,
  type InsertResult,
  type Page,
  type Schema,
} from '../collection';
import { jsonCopy, type Database } from '../database';

/** One family in memory: documents by id, and each unique index's values. */
class MemoryCollection<T> implements Collection<T> {
  private readonly docs = new Map<string, T>();
  private readonly unique = new Map<string, Map<string, string>>();

  constructor(private readonly schema: Schema<T>) {
    for (const index of schema.indexes ?? []) if (index.unique) this.unique.set(index.name, new Map());
  }

  private live(id: string): T | undefined {
    const doc = this.docs.get(id);
    if (doc === undefined || !isExpired(this.schema, doc)) return doc;
    this.remove(id, doc);
    return undefined;
  }

  private remove(id: string, doc: T): void {
    this.docs.delete(id);
    for (const index of this.schema.indexes ?? []) {
      const taken = this.unique.get(index.name);
      if (taken) for (const v of valuesOf(index, doc)) if (taken.get(v) === id) taken.delete(v);
    }
  }

  /** The unique index a document would find taken (by a document other than `id`). */
  private takenBy(doc: T, id: string): string | undefined {
    for (const index of this.schema.indexes ?? []) {
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
    for (const index of this.schema.indexes ?? []) this.unique.get(index.name)?.forEach((holder, v, taken) => holder === id && taken.delete(v));
    this.docs.set(id, doc);
    for (const index of this.schema.indexes ?? []) {
      const taken = this.unique.get(index.name);
      if (taken) for (const v of valuesOf(index, doc)) taken.set(v, id);
    }
  }

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
    const index = indexOf(this.schema, name);
    const limit = checkLimit(query.limit);
    const after = query.after === undefined ? undefined : decodeCursor(query.after);
    const rows: Array<{ value: string; id: string }> = [];
    for (const [id] of this.docs) {
      const doc = this.live(id);
      if (doc === undefined) continue;
      for (const value of valuesOf(index, doc)) if (value.startsWith(query.prefix)) rows.push({ value, id });
    }
    const byOrder = (a: { value: string; id: string }, b: { value: string; id: string }): number => compare(a.value, b.value) || compare(a.id, b.id);
    rows.sort(byOrder);
    const from = after === undefined ? rows : rows.filter((r) => byOrder(r, after) > 0);
    const page = from.slice(0, limit);
    const last = page.at(-1);
    return { docs: page.map((r) => jsonCopy(this.docs.get(r.id) as T)), values: page.map((r) => r.value), next: from.length > limit && last ? encodeCursor(last.value, last.id) : undefined };
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
