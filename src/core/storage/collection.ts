import { AuthError } from '../../base/errors';

/**
 * One index of a family: the values a document is found by. A value is text; a document may have
 * several (a user is found by each word of its name) or none. Lookups go by prefix and come back
 * ordered by value then id, so a value that ends in a sortable part (`<user id>\u0000<time>`) gives
 * "a user's things, oldest first" with no other query kind.
 */
export interface IndexSpec<T> {
  /** Letters, digits and `_`, unique in the schema. */
  readonly name: string;
  /** The values of `doc` in this index. */
  values(doc: T): readonly string[];
  /** No two documents share a value (an e-mail, a slug): an insert or update that would is refused. */
  readonly unique?: boolean;
}

/**
 * A store family as data: its name (a table, a collection, a folder), how a document names its id,
 * and its indexes. Adding a family is one such schema and a repository over the collection it gives.
 */
export interface Schema<T> {
  /** Lower-case letters, digits and `_`: `users`, `credentials`. */
  readonly family: string;
  /** The document's id (a primary key: unique, never changed by an update). */
  id(doc: T): string;
  /** Its indexes. @default none */
  readonly indexes?: readonly IndexSpec<T>[];
  /** When a document stops existing, ms since the epoch (reads no longer see it; its id and unique values are free again). @default never */
  expiresAt?(doc: T): number | undefined;
  /**
   * Where the family's store of before 2026-11-27 kept each document, whole, as JSON: the adapter
   * copies them once, at first use, and leaves the old data as it was (a step back still finds it).
   * @default nothing to copy
   */
  readonly legacy?: LegacyLayout<T>;
}

/** Where an older store of a family kept its documents, per database kind. */
export interface LegacyLayout<T = unknown> {
  /** The SQL table `authgate_<sqlTable>` (the older stores' tables were PostgreSQL's only). */
  readonly sqlTable?: string;
  /** A PostgreSQL expression over that table's columns that gives the document as JSON. @default `doc` */
  readonly sqlDoc?: string;
  /** The level keys that start with this. */
  readonly levelPrefix?: string;
  /** The document one of those keys holds. @default the value, parsed as JSON */
  levelDoc?(key: string, value: string): T;
  /** The MongoDB collection of the older store (in the URI's database). */
  readonly mongoCollection?: string;
  /** The document one of its records holds. @default the record as it is */
  mongoDoc?(record: Record<string, unknown>): T;
  /** What becomes of the older documents, all of them at once, before they are copied (a family's own clean-up). @default copied as they are */
  prepare?(docs: T[]): T[];
}

/** The documents of an older store as {@link LegacyLayout.prepare} leaves them. */
export function preparedLegacy<T>(schema: Schema<T>, docs: T[]): T[] {
  return schema.legacy?.prepare ? schema.legacy.prepare(docs) : docs;
}

/** Where a page of a lookup stopped; pass it back as `after` for the next page. Opaque. */
export type Cursor = string;

/** A lookup by index: every document with a value that starts with `prefix`, ordered by value then id. */
export interface IndexQuery {
  /** The start of the values wanted; `''` lists the whole index. */
  prefix: string;
  /** The `next` of the previous page. @default the first page */
  after?: Cursor | undefined;
  /** The most documents of the page, 1 to 1000. */
  limit: number;
}

/** A page of documents, the index value each was found at, and where the next page starts (absent on the last page). */
export interface Page<T> {
  docs: T[];
  /** `values[i]` is the value `docs[i]` was found at (a document with several values may be found at more than one). */
  values: string[];
  next?: Cursor | undefined;
}

/** What an insert did: stored it, found its id taken, or found a unique index's value taken (`taken` names the index). */
export type InsertResult = { inserted: true } | { inserted: false; taken: 'id' | (string & {}) };

/**
 * One family's documents on one database: what every repository is written against and every
 * adapter implements. Every write is atomic; `update` is a read-change-write that never loses a
 * concurrent update and never gives up under contention (the adapter locks the row or retries
 * without a bound). Values round-trip as JSON.
 */
export interface Collection<T> {
  /** Makes the family's tables (or collections) and copies an older store's documents, once; every other method waits for it on its own. */
  ready(): Promise<void>;
  /** The document with this id. */
  get(id: string): Promise<T | undefined>;
  /** Stores a new document, unless its id or a unique value is taken. */
  insert(doc: T): Promise<InsertResult>;
  /**
   * Applies `change` to the stored document atomically (it gets a copy; `undefined` leaves the
   * document as it is; it may run more than once, so it must not have effects of its own) and
   * returns what is stored after; `undefined` when there is no such document.
   * @throws UniqueTakenError when the change would give a unique index a value another document has.
   */
  update(id: string, change: (doc: T) => T | undefined): Promise<T | undefined>;
  /** Deletes a document and returns it (`undefined` when there was none): of two racing deletes, one gets it. */
  delete(id: string): Promise<T | undefined>;
  /** A page of the documents whose value in `index` starts with the query's prefix, ordered by value then id. */
  find(index: string, query: IndexQuery): Promise<Page<T>>;
  /** How many index entries start with `prefix` (a document counts once per distinct value there). */
  count(index: string, prefix: string): Promise<number>;
}

/** An update would give a unique index a value another document holds. */
export class UniqueTakenError extends AuthError {
  /** @param index - the unique index whose value is taken. */
  constructor(readonly index: string) {
    super('conflict', `the ${index} is taken`);
  }
}

/** Where a document stands in an index's order, as a cursor: its value and its id. */
export function encodeCursor(value: string, id: string): Cursor {
  return Buffer.from(JSON.stringify([value, id])).toString('base64url');
}

/** Half of a UTF-16 pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The value and id a cursor names. @throws AuthError (`bad_request`) for one no page gave. */
export function decodeCursor(cursor: Cursor): { value: string; id: string } {
  const bad = (): AuthError => new AuthError('bad_request', 'cursor is malformed: pass the next of the previous page');
  if (typeof cursor !== 'string' || cursor.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') throw bad();
  // No page gives an id with NUL (no database keeps one) nor text that is not well-formed UTF-16.
  if (parsed[1].includes('\u0000') || LONE_SURROGATE.test(parsed[0]) || LONE_SURROGATE.test(parsed[1])) throw bad();
  return { value: parsed[0], id: parsed[1] };
}

const NAME = /^[a-z][a-z0-9_]{0,39}$/;

/** Checks a schema once, when a collection is made for it (a mistake is a bug: it fails at start-up). */
export function checkSchema<T>(schema: Schema<T>): void {
  if (!NAME.test(schema.family)) throw new AuthError('config', `storage: family ${JSON.stringify(schema.family)} must be lower-case letters, digits and _`);
  const names = new Set<string>();
  for (const index of schema.indexes ?? []) {
    if (!NAME.test(index.name) || names.has(index.name)) throw new AuthError('config', `storage: ${schema.family} has a bad or repeated index name ${JSON.stringify(index.name)}`);
    names.add(index.name);
  }
}

/**
 * The index every family has without declaring it: its documents by id (the value of each is its
 * id). Read straight from the documents, so listing a family in id order costs no index entries.
 */
export const BY_ID = '_id';

/** The index of `schema` named `name` ({@link BY_ID} included). @throws AuthError (`config`) for an unknown one (a bug). */
export function indexOf<T>(schema: Schema<T>, name: string): IndexSpec<T> {
  if (name === BY_ID) return { name: BY_ID, values: (doc) => [schema.id(doc)] };
  const found = schema.indexes?.find((i) => i.name === name);
  if (found === undefined) throw new AuthError('config', `storage: ${schema.family} has no index ${name}`);
  return found;
}

/** The most documents one page may hold. */
export const MAX_PAGE = 1000;

/** Checks a query's limit (a bug when out of range). */
export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new AuthError('config', `storage: a page holds 1 to ${MAX_PAGE} documents`);
  return limit;
}

/** The distinct values of a document in an index (a document is listed once per distinct value). */
export function valuesOf<T>(index: IndexSpec<T>, doc: T): string[] {
  return [...new Set(index.values(doc))];
}

/** Whether a document has expired at `now`. */
export function isExpired<T>(schema: Schema<T>, doc: T, now = Date.now()): boolean {
  const at = schema.expiresAt?.(doc);
  return at !== undefined && at <= now;
}

/**
 * An index value as databases keep it, in the same order as the value: `\u0000` (which PostgreSQL
 * text cannot hold, and which ends a value in a level key) and `\u0001` are escaped with `\u0001`.
 * A prefix of a value stays a prefix of its stored form.
 */
export function storedValue(value: string): string {
  // eslint-disable-next-line no-control-regex -- these two characters are what is escaped
  return value.replace(/[\u0000\u0001]/g, (c) => (c === '\u0000' ? '\u0001\u0001' : '\u0001\u0002'));
}

/** The value of its stored form (see {@link storedValue}). */
export function valueOfStored(stored: string): string {
  // eslint-disable-next-line no-control-regex -- the escapes of storedValue
  return stored.replace(/\u0001[\u0001\u0002]/g, (c) => (c === '\u0001\u0001' ? '\u0000' : '\u0001'));
}

/** Every document of a lookup, read page by page. */
export async function* everyDoc<T>(docs: Collection<T>, index: string, prefix: string): AsyncGenerator<T> {
  let after: Cursor | undefined;
  do {
    const page = await docs.find(index, { prefix, limit: MAX_PAGE, after });
    yield* page.docs;
    after = page.next;
  } while (after !== undefined);
}

/** Stores `doc` whether or not its id is there (replacing what is); of racing calls, each lands once. */
export async function replaceDoc<T>(docs: Collection<T>, id: string, doc: T): Promise<void> {
  while (!(await docs.insert(doc)).inserted) if ((await docs.update(id, () => doc)) !== undefined) return;
}

/** Every document of a lookup, in order. */
export async function allDocs<T>(docs: Collection<T>, index: string, prefix: string): Promise<T[]> {
  const found: T[] = [];
  for await (const doc of everyDoc(docs, index, prefix)) found.push(doc);
  return found;
}

/** How an older MongoDB store's record becomes a document: its `_id` back under `idField`, its version counter `_v` dropped. */
export function fromMongoRecord<T>(idField: string): (record: Record<string, unknown>) => T {
  return ({ _id, _v, ...rest }) => ({ ...rest, [idField]: _id }) as T;
}

/** The least text greater than every text that starts with `prefix`; `undefined` when there is none. */
export function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix.charCodeAt(i);
    if (c < 0xffff) return prefix.slice(0, i) + String.fromCharCode(c + 1);
  }
  return undefined;
}

/**
 * A page from the entries of a lookup read one past `limit`, each with its document, or
 * `undefined` where the entry is to be skipped (an expired document, a write in progress). When
 * skipped entries leave the page short, more may follow this read: the next page starts after
 * the last entry read.
 */
export function pageOf<T>(found: ReadonlyArray<{ value: string; id: string; doc: T | undefined }>, limit: number): Page<T> {
  const page: Page<T> = { docs: [], values: [] };
  let last: { value: string; id: string } | undefined;
  for (const entry of found) {
    if (entry.doc === undefined) continue;
    if (page.docs.length === limit) return { ...page, next: last && encodeCursor(last.value, last.id) };
    page.docs.push(entry.doc);
    page.values.push(entry.value);
    last = entry;
  }
  const tail = found.at(-1);
  if (found.length === limit + 1 && page.docs.length < limit && tail) return { ...page, next: encodeCursor(tail.value, tail.id) };
  return page;
}
