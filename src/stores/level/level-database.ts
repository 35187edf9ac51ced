import type { Level } from 'level';
import { KeyLock } from '../../internal/key-lock';
import { openLevel, whenOpen } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import { uriPath } from '../../internal/store-uri';
import {
  checkLimit,
  checkSchema,
  decodeCursor,
  BY_ID,
  indexOf,
  pageOf,
  prefixEnd,
  UniqueTakenError,
  valuesOf,
  type Collection,
  type IndexQuery,
  type LegacyLayout,
  preparedLegacy,
  type InsertResult,
  type Page,
  storedValue,
  valueOfStored,
  type Schema,
} from '../../core/storage/collection';
import type { Database } from '../../core/storage/database';

/** What a document key holds: the document and when it expires. */
interface Stored<T> {
  d: T;
  e?: number | undefined;
}

/** Whether a stored document has expired at `now`. */
function isStoredExpired<T>(stored: Stored<T>, now = Date.now()): boolean {
  return stored.e !== undefined && stored.e <= now;
}

/** The write lock of each folder of this process, by family: every collection of a family on a folder shares it. */
const locks = new WeakMap<object, KeyLock>();
function lockOf(db: object): KeyLock {
  let lock = locks.get(db);
  if (lock === undefined) locks.set(db, (lock = new KeyLock()));
  return lock;
}

/**
 * One family in a LevelDB folder: `<family>!d!<id>` holds a document, `<family>!x!<index>!<value>
 * \u0000<id>` an index entry, `<family>!u!<index>!<value>` the holder of a unique value. A folder
 * is one process's, so writes of a family run one at a time here and land in one batch.
 */
class LevelCollection<T> implements Collection<T> {
  private readonly lock: KeyLock;
  private adopting: Promise<void> | undefined;

  constructor(
    private readonly db: Level<string, string>,
    private readonly schema: Schema<T>,
  ) {
    checkSchema(schema);
    this.lock = lockOf(db);
  }

  private docKey(id: string): string {
    return `${this.schema.family}!d!${id}`;
  }

  private indexBase(index: string): string {
    return `${this.schema.family}!x!${index}!`;
  }

  private uniqueKey(index: string, value: string): string {
    return `${this.schema.family}!u!${index}!${value}`;
  }

  private async stored(id: string): Promise<Stored<T> | undefined> {
    const text = await this.db.get(this.docKey(id));
    return text === undefined ? undefined : (JSON.parse(text) as Stored<T>);
  }

  private async read(id: string): Promise<T | undefined> {
    const stored = await this.stored(id);
    return stored === undefined || isStoredExpired(stored) ? undefined : stored.d;
  }

  /** The batch that removes `doc`'s keys. */
  private removal(id: string, doc: T): Array<{ type: 'del'; key: string }> {
    const ops: Array<{ type: 'del'; key: string }> = [{ type: 'del', key: this.docKey(id) }];
    for (const index of this.schema.indexes ?? []) {
      for (const value of valuesOf(index, doc)) {
        ops.push({ type: 'del', key: `${this.indexBase(index.name)}${storedValue(value)}\u0000${id}` });
        if (index.unique) ops.push({ type: 'del', key: this.uniqueKey(index.name, value) });
      }
    }
    return ops;
  }

  /** The batch that writes `doc`'s keys, or the unique index whose value another live document holds. */
  private async writing(id: string, doc: T): Promise<Array<{ type: 'put'; key: string; value: string }> | string> {
    const ops: Array<{ type: 'put'; key: string; value: string }> = [{ type: 'put', key: this.docKey(id), value: JSON.stringify({ d: doc, e: this.schema.expiresAt?.(doc) }) }];
    for (const index of this.schema.indexes ?? []) {
      for (const value of valuesOf(index, doc)) {
        if (index.unique) {
          const holder = await this.db.get(this.uniqueKey(index.name, value));
          if (holder !== undefined && holder !== id && (await this.read(holder)) !== undefined) return index.name;
          ops.push({ type: 'put', key: this.uniqueKey(index.name, value), value: id });
        }
        ops.push({ type: 'put', key: `${this.indexBase(index.name)}${storedValue(value)}\u0000${id}`, value: '' });
      }
    }
    return ops;
  }

  /** The documents of the family's older store, copied once (a marker key says it was done). */
  private adopted(): Promise<void> {
    const prefix = this.schema.legacy?.levelPrefix;
    if (prefix === undefined) return whenOpen(this.db);
    this.adopting ??= this.lock
      .run(this.schema.family, async () => {
        await whenOpen(this.db);
        const marker = `${this.schema.family}!m!adopted`;
        if ((await this.db.get(marker)) !== undefined) return;
        const legacy = this.schema.legacy as LegacyLayout<T>;
        const found: T[] = [];
        for await (const [key, text] of this.db.iterator({ gt: prefix, lt: `${prefix}\uffff` })) found.push(legacy.levelDoc ? legacy.levelDoc(key, text) : (JSON.parse(text) as T));
        for (const doc of preparedLegacy(this.schema, found)) {
          const id = this.schema.id(doc);
          if ((await this.db.get(this.docKey(id))) !== undefined) continue;
          const ops = await this.writing(id, doc);
          if (typeof ops !== 'string') await this.db.batch(ops);
        }
        await this.db.put(marker, String(Date.now()));
      })
      .catch((err: unknown) => {
        // Tried again at the next call, which skips what this one copied.
        this.adopting = undefined;
        throw err;
      });
    return this.adopting;
  }

  ready(): Promise<void> {
    return this.adopted();
  }

  async get(id: string): Promise<T | undefined> {
    await this.adopted();
    return this.read(id);
  }

  async insert(doc: T): Promise<InsertResult> {
    await this.adopted();
    return this.lock.run(this.schema.family, async () => {
      const id = this.schema.id(doc);
      const old = await this.stored(id);
      if (old !== undefined && !isStoredExpired(old)) return { inserted: false, taken: 'id' };
      const stored = JSON.parse(JSON.stringify(doc)) as T;
      const ops = await this.writing(id, stored);
      if (typeof ops === 'string') return { inserted: false, taken: ops };
      await this.db.batch([...(old === undefined ? [] : this.removal(id, old.d)), ...ops]);
      return { inserted: true };
    });
  }

  async update(id: string, change: (doc: T) => T | undefined): Promise<T | undefined> {
    await this.adopted();
    return this.lock.run(this.schema.family, async () => {
      const current = await this.read(id);
      if (current === undefined) return undefined;
      const changed = change(JSON.parse(JSON.stringify(current)) as T);
      if (changed === undefined) return current;
      const next = JSON.parse(JSON.stringify(changed)) as T;
      if (this.schema.id(next) !== id) throw new Error(`storage: an update of ${this.schema.family} changed the id`);
      const ops = await this.writing(id, next);
      if (typeof ops === 'string') throw new UniqueTakenError(ops);
      // The old entries go first in the batch: a value kept by the update is put back after.
      await this.db.batch([...this.removal(id, current), ...ops]);
      return next;
    });
  }

  async delete(id: string): Promise<T | undefined> {
    await this.adopted();
    return this.lock.run(this.schema.family, async () => {
      const stored = await this.stored(id);
      if (stored === undefined) return undefined;
      await this.db.batch(this.removal(id, stored.d));
      return isStoredExpired(stored) ? undefined : stored.d;
    });
  }

  async find(name: string, query: IndexQuery): Promise<Page<T>> {
    await this.adopted();
    indexOf(this.schema, name);
    const limit = checkLimit(query.limit);
    const after = query.after === undefined ? undefined : decodeCursor(query.after);
    const entries: Array<{ value: string; id: string }> = [];
    let stored: Array<string | undefined>;
    if (name === BY_ID) {
      // The documents themselves, in key order: the page and one more in one read.
      const base = this.docKey('');
      const start = `${base}${query.prefix}`;
      const end = query.prefix === '' ? prefixEnd(base) : prefixEnd(start);
      const range = after === undefined ? { gte: start } : { gt: `${base}${after.id}` };
      stored = [];
      for await (const [key, text] of this.db.iterator({ ...range, ...(end === undefined ? {} : { lt: end }), limit: limit + 1 })) {
        const id = key.slice(base.length);
        entries.push({ value: id, id });
        stored.push(text);
      }
    } else {
      const base = this.indexBase(name);
      const start = `${base}${storedValue(query.prefix)}`;
      const end = query.prefix === '' ? prefixEnd(base) : prefixEnd(start);
      const range = after === undefined ? { gte: start } : { gt: `${base}${storedValue(after.value)}\u0000${after.id}` };
      // The entries of a page and one more, then their documents in one read.
      for await (const key of this.db.keys({ ...range, ...(end === undefined ? {} : { lt: end }), limit: limit + 1 })) {
        const rest = key.slice(base.length);
        const cut = rest.indexOf('\u0000');
        entries.push({ value: valueOfStored(rest.slice(0, cut)), id: rest.slice(cut + 1) });
      }
      stored = await this.db.getMany(entries.map((e) => this.docKey(e.id)));
    }
    const now = Date.now();
    return pageOf(
      entries.map((entry, i) => {
        const text = stored[i];
        const record = text === undefined ? undefined : (JSON.parse(text) as Stored<T>);
        return { ...entry, doc: record === undefined || isStoredExpired(record, now) ? undefined : record.d };
      }),
      limit,
    );
  }

  async count(name: string, prefix: string): Promise<number> {
    await this.adopted();
    indexOf(this.schema, name);
    const byId = name === BY_ID;
    const base = byId ? this.docKey('') : this.indexBase(name);
    const start = `${base}${byId ? prefix : storedValue(prefix)}`;
    const end = prefix === '' ? prefixEnd(base) : prefixEnd(start);
    let n = 0;
    let ids: string[] = [];
    // Only a family whose documents expire needs them read; in slices, not all at once.
    const tally = async (): Promise<void> => {
      if (this.schema.expiresAt === undefined) n += ids.length;
      else for (const text of await this.db.getMany(ids.map((id) => this.docKey(id)))) n += text !== undefined && !isStoredExpired(JSON.parse(text) as Stored<T>) ? 1 : 0;
      ids = [];
    };
    for await (const key of this.db.keys({ gte: start, ...(end === undefined ? {} : { lt: end }) })) {
      ids.push(byId ? key.slice(base.length) : key.slice(key.indexOf('\u0000', base.length) + 1));
      if (ids.length === 1000) await tally();
    }
    await tally();
    return n;
  }
}

/**
 * Every family in one LevelDB folder (`level`, an optional package): `level:///var/lib/app/auth`.
 * One machine, one process; kept across restarts.
 */
export class LevelDatabase implements Database {
  private readonly lease: Lease<Level<string, string>>;
  private readonly collections = new Map<string, LevelCollection<unknown>>();

  /** @param uri - `level:///absolute/folder` or `level://./relative/folder`. */
  constructor(uri: string) {
    this.lease = openLevel<string>(uriPath(uri, 'level:///var/lib/app/auth'), 'utf8');
  }

  /** @inheritdoc */
  collection<T>(schema: Schema<T>): Collection<T> {
    let found = this.collections.get(schema.family);
    if (found === undefined) {
      found = new LevelCollection(this.lease.handle, schema as Schema<unknown>);
      this.collections.set(schema.family, found);
    }
    return found as Collection<T>;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
