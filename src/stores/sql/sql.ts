import {
  checkLimit,
  checkSchema,
  decodeCursor,
  encodeCursor,
  BY_ID,
  indexOf,
  UniqueTakenError,
  valuesOf,
  type Collection,
  type IndexQuery,
  type InsertResult,
  type Page,
  prefixEnd,
  preparedLegacy,
  storedValue,
  valueOfStored,
  type Schema,
} from '../../core/storage/collection';
import { jsonCopy, type Database } from '../../core/storage/database';
import { AuthError } from '../../base/errors';

/** One version of a family's tables: a statement, or code run on the migration's connection. */
export type SqlMigrationStep = string | ((session: SqlSession) => Promise<void>);

/** Statements on one connection, inside a transaction or not; `?` marks parameters (the dialect rewrites them). */
export interface SqlSession {
  /** The rows of a query. */
  rows<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a statement; how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** What differs between SQL databases, and the connection: everything else is {@link SqlCollection}'s. */
export interface SqlDriver {
  /** A statement outside any transaction. */
  readonly session: SqlSession;
  /** Runs `work` in one transaction (committed when it resolves, rolled back when it throws); the driver serialises them as the database needs. */
  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /** Applies `steps` of `family` once each, in order, under a lock that instances starting together share. */
  migrate(family: string, steps: readonly SqlMigrationStep[]): Promise<void>;
  /** Whether table `authgate_<name>` exists (on the session of a migration). */
  tableExists(session: SqlSession, name: string): Promise<boolean>;
  /** The quoted name of table `authgate_<name>` (in the schema, where the database has them). */
  table(name: string): string;
  /** The quoted name of index `authgate_<name>` (as `CREATE INDEX` names it). */
  indexName(name: string): string;
  /** Column types: an indexed text compared byte by byte, a JSON document, a 64-bit integer. */
  readonly types: { key: string; value: string; json: string; bigint: string };
  /** `INSERT` that skips a row whose key exists, for `table (columns) VALUES (...)`. */
  insertIgnore(rest: string): string;
  /** The statements that make the table recording applied versions (`authgate_migrations`), each idempotent. */
  readonly migrationsTable: readonly string[];
  /** A statement recording `version` of `family` as applied, values written in (for a printed script). */
  recordVersion(family: string, version: number): string;
  /**
   * The join that reads the index table first and each entry's document after it, in the order of
   * the index: `JOIN` where the planner gets it right (PostgreSQL), `STRAIGHT_JOIN` (MySQL, whose
   * planner sorted a small table's whole range), `LEFT JOIN` (SQLite, which otherwise builds a
   * Bloom filter over every document first: 131 ms a page at a million users). Rows without a
   * document are left out either way.
   */
  readonly indexFirstJoin: string;
  /** Whether a `WITH` clause may hold an `INSERT` (PostgreSQL): a document and its entries then go in one statement. */
  readonly insertInWith: boolean;
  /** Whether an error is the database refusing a duplicate key: a document with unique values then goes in one statement too. */
  readonly isUniqueViolation?: ((err: unknown) => boolean) | undefined;
  /** Appended to a `SELECT` that locks the rows it reads until the transaction ends (`''` where a transaction locks the database). */
  readonly forUpdate: string;
  /** A stored JSON document as the driver returns it, parsed. */
  parse<T>(stored: unknown): T;
}

/** How a dialect names and types authgate's tables, and records versions: all a printed script needs (no connection). */
export type SqlNaming = Pick<SqlDriver, 'table' | 'indexName' | 'types' | 'migrationsTable' | 'recordVersion'>;

/** The tables of one family: its documents, its index entries, and its unique values. */
function tablesOf(driver: Pick<SqlDriver, 'table'>, family: string): { docs: string; idx: string; uniq: string } {
  // `_doc`: the stores of before 2026-11-27 named their tables after the family alone.
  return { docs: driver.table(`${family}_doc`), idx: driver.table(`${family}_idx`), uniq: driver.table(`${family}_uniq`) };
}

/** The schema's tables, in the driver's types; index rows and unique rows go with their document. */
export function sqlMigrations(driver: SqlNaming, family: string): SqlMigrationStep[] {
  const { docs, idx, uniq } = tablesOf(driver, family);
  const { key, value, json, bigint } = driver.types;
  return [
    `CREATE TABLE ${docs} (id ${key} NOT NULL PRIMARY KEY, doc ${json} NOT NULL, expires ${bigint} NULL)`,
    `CREATE TABLE ${idx} (name ${key} NOT NULL, value ${value} NOT NULL, id ${key} NOT NULL, PRIMARY KEY (name, value, id), FOREIGN KEY (id) REFERENCES ${docs} (id) ON DELETE CASCADE)`,
    `CREATE TABLE ${uniq} (name ${key} NOT NULL, value ${value} NOT NULL, id ${key} NOT NULL, PRIMARY KEY (name, value), FOREIGN KEY (id) REFERENCES ${docs} (id) ON DELETE CASCADE)`,
    `CREATE INDEX ${driver.indexName(`${family}_idx_id`)} ON ${idx} (id)`,
    `CREATE INDEX ${driver.indexName(`${family}_uniq_id`)} ON ${uniq} (id)`,
    `CREATE INDEX ${driver.indexName(`${family}_expires`)} ON ${docs} (expires)`,
  ];
}

/** The migrations table of MySQL and SQLite (PostgreSQL's is its own: see PgDatabase). */
export function migrationsTableOf(naming: Pick<SqlDriver, 'table' | 'types'>): string[] {
  const { key, bigint } = naming.types;
  return [`CREATE TABLE IF NOT EXISTS ${naming.table('migrations')} (family ${key} NOT NULL, version INTEGER NOT NULL, applied ${bigint} NOT NULL, PRIMARY KEY (family, version))`];
}

/** A text as a SQL string literal (for a printed script: family names, never user input). */
export function sqlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Applies the steps of `family` that `authgate_migrations` does not record yet, in order, each
 * recorded once applied, on one session whose caller holds the migration lock (the database's own).
 */
export async function applyMigrations(s: SqlSession, naming: Pick<SqlDriver, 'table' | 'types'>, family: string, steps: readonly SqlMigrationStep[]): Promise<void> {
  const migrations = naming.table('migrations');
  for (const statement of migrationsTableOf(naming)) await s.run(statement);
  const [row] = await s.rows<{ v: number | null }>(`SELECT max(version) AS v FROM ${migrations} WHERE family = ?`, [family]);
  for (let version = (row?.v ?? 0) + 1; version <= steps.length; version++) {
    const step = steps[version - 1] as SqlMigrationStep;
    if (typeof step === 'string') await s.run(step);
    else await step(s);
    await s.run(`INSERT INTO ${migrations} (family, version, applied) VALUES (?, ?, ?)`, [family, version, Date.now()]);
  }
}

/** Whether two versions of a document have the same values in every index. */
function sameEntries<T>(schema: Schema<T>, a: T, b: T): boolean {
  return (schema.indexes ?? []).every((index) => {
    const x = valuesOf(index, a);
    const y = valuesOf(index, b);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  });
}

/** Every this many inserts of a family whose documents expire, one {@link SqlCollection} sweep. */
const SWEEP_EVERY = 50;
/** The most expired documents one sweep deletes (short statements, small locks). */
const SWEEP_BATCH = 100;

/**
 * The statements that make the tables of these families and record them as applied in
 * `authgate_migrations`, for a team that runs its own migration tool (`npx authgate migrate
 * --print`), on a database that has none of their versions yet. The step that copies an older
 * store's rows is code, not SQL: a comment names it, and authgate runs it at its first start.
 */
export function migrationScript(naming: SqlNaming, schemas: ReadonlyArray<Schema<unknown>>): string[] {
  const out = [...naming.migrationsTable];
  for (const schema of schemas) {
    const family = `store:${schema.family}`;
    const steps = sqlMigrations(naming, schema.family) as string[];
    out.push(...versionsScript(naming, family, steps));
    if (schema.legacy?.sqlTable !== undefined)
      out.push(`-- ${family} version ${steps.length + 1}: authgate copies the rows of an older authgate_${schema.legacy.sqlTable}, if there is one, at its first start`);
  }
  return out;
}

/** Each of `steps` (versions 1, 2, ... of `family`) followed by the statement recording it as applied. */
export function versionsScript(naming: SqlNaming, family: string, steps: readonly string[]): string[] {
  return steps.flatMap((step, i) => [step, naming.recordVersion(family, i + 1)]);
}

/** Thrown inside a transaction to roll an insert back whose unique value is taken. */
class Taken extends AuthError {
  constructor(readonly index: string) {
    super('conflict', `a unique value of ${index} is taken`);
  }
}

/**
 * One family in SQL: a document table (id, JSON, expiry), an index table of (name, value, id)
 * rows, and a unique table whose primary key is (name, value), so the database itself refuses a
 * second holder of a unique value, whatever the instance. Writes are transactions that lock the
 * document row; index rows follow their document by cascade.
 */
export class SqlCollection<T> implements Collection<T> {
  private readonly t: { docs: string; idx: string; uniq: string };
  private migrating: Promise<void> | undefined;
  private inserts = 0;

  /**
   * @param driver - the database.
   * @param schema - the family.
   */
  constructor(
    private readonly driver: SqlDriver,
    private readonly schema: Schema<T>,
  ) {
    checkSchema(schema);
    this.t = tablesOf(driver, schema.family);
  }

  /** The tables, then the documents of the family's older store, once (inserted as {@link SqlCollection.insert} would). */
  private steps(): SqlMigrationStep[] {
    const legacy = this.schema.legacy?.sqlTable;
    if (legacy === undefined) return sqlMigrations(this.driver, this.schema.family);
    const adopt = async (s: SqlSession): Promise<void> => {
      if (!(await this.driver.tableExists(s, legacy))) return;
      const rows = await s.rows<{ doc: unknown }>(`SELECT ${this.schema.legacy?.sqlDoc ?? 'doc'} AS doc FROM ${this.driver.table(legacy)}`);
      for (const doc of preparedLegacy(
        this.schema,
        rows.map((row) => this.driver.parse<T>(row.doc)),
      )) {
        await this.insertWith(s, doc).catch((err: unknown) => {
          if (!(err instanceof Taken)) throw err;
        });
      }
    };
    return [...sqlMigrations(this.driver, this.schema.family), adopt];
  }

  private migrated(): Promise<void> {
    this.migrating ??= this.driver.migrate(`store:${this.schema.family}`, this.steps()).catch((err: unknown) => {
      this.migrating = undefined;
      throw err;
    });
    return this.migrating;
  }

  private expiresOf(doc: T): number | null {
    return this.schema.expiresAt?.(doc) ?? null;
  }

  /** Writes the index and unique rows of `doc` (its old ones gone); throws {@link Taken} for a unique value another document holds. */
  private async writeEntries(s: SqlSession, id: string, doc: T): Promise<void> {
    for (const index of this.schema.indexes ?? []) {
      for (const value of valuesOf(index, doc)) {
        if (!index.unique) {
          await s.run(this.driver.insertIgnore(`${this.t.idx} (name, value, id) VALUES (?, ?, ?)`), [index.name, storedValue(value), id]);
          continue;
        }
        // A value held by a document that has expired is free again.
        const stored = storedValue(value);
        await s.run(`DELETE FROM ${this.t.docs} WHERE expires <= ? AND id IN (SELECT id FROM ${this.t.uniq} WHERE name = ? AND value = ?)`, [Date.now(), index.name, stored]);
        if ((await s.run(this.driver.insertIgnore(`${this.t.uniq} (name, value, id) VALUES (?, ?, ?)`), [index.name, stored, id])) === 0) throw new Taken(index.name);
        await s.run(this.driver.insertIgnore(`${this.t.idx} (name, value, id) VALUES (?, ?, ?)`), [index.name, stored, id]);
      }
    }
  }

  ready(): Promise<void> {
    return this.migrated();
  }

  async get(id: string): Promise<T | undefined> {
    await this.migrated();
    const [row] = await this.driver.session.rows<{ doc: unknown }>(`SELECT doc FROM ${this.t.docs} WHERE id = ? AND (expires IS NULL OR expires > ?)`, [id, Date.now()]);
    return row === undefined ? undefined : this.driver.parse<T>(row.doc);
  }

  async insert(doc: T): Promise<InsertResult> {
    await this.migrated();
    const unique = (this.schema.indexes ?? []).some((i) => i.unique);
    if (this.driver.insertInWith && this.schema.expiresAt === undefined && !unique) return this.insertAtOnce(doc);
    // With unique values: one statement that a taken value or id undoes whole (the database's
    // constraint refuses it); only then the transaction below says which was taken.
    if (this.driver.insertInWith && this.schema.expiresAt === undefined && this.driver.isUniqueViolation !== undefined) {
      try {
        return await this.insertAtOnce(doc, true);
      } catch (err) {
        if (!this.driver.isUniqueViolation(err)) throw err;
      }
    }
    let result: InsertResult;
    try {
      result = await this.driver.transaction((s) => this.insertWith(s, doc));
    } catch (err) {
      if (err instanceof Taken) return { inserted: false, taken: err.index };
      throw err;
    }
    if (this.schema.expiresAt !== undefined && ++this.inserts % SWEEP_EVERY === 0) await this.sweep();
    return result;
  }

  /** Deletes a batch of expired documents (reads never see them; this gives their rows back). */
  private async sweep(): Promise<void> {
    const ids = await this.driver.session.rows<{ id: string }>(`SELECT id FROM ${this.t.docs} WHERE expires <= ? ORDER BY expires LIMIT ${SWEEP_BATCH}`, [Date.now()]);
    if (ids.length === 0) return;
    await this.driver.session.run(`DELETE FROM ${this.t.docs} WHERE expires <= ? AND id IN (${ids.map(() => '?').join(', ')})`, [Date.now(), ...ids.map((r) => r.id)]);
  }

  /**
   * A document with no unique value and no expiry, and its entries, in one statement (one round
   * trip, as an audit event or a credential cost before the families shared tables).
   */
  private async insertAtOnce(doc: T, strict = false): Promise<InsertResult> {
    const id = this.schema.id(doc);
    const entries = (this.schema.indexes ?? []).flatMap((index) => valuesOf(index, doc).map((value) => [index.name, storedValue(value)]));
    const uniques = (this.schema.indexes ?? []).filter((i) => i.unique).flatMap((index) => valuesOf(index, doc).map((value) => [index.name, storedValue(value)]));
    // strict: a taken id raises the constraint's error too, so nothing of the statement stays.
    const insertDoc = `INSERT INTO ${this.t.docs} (id, doc, expires) VALUES (?, ?, NULL)${strict ? '' : ' ON CONFLICT DO NOTHING'} RETURNING id`;
    const rowsOf = (table: string, values: unknown[][], onConflict: string): string =>
      `INSERT INTO ${table} (name, value, id) SELECT v.name, v.value, d.id FROM d CROSS JOIN (VALUES ${values.map(() => '(?, ?)').join(', ')}) AS v (name, value)${onConflict}`;
    const parts = [`d AS (${insertDoc})`];
    if (uniques.length > 0) parts.push(`u AS (${rowsOf(this.t.uniq, uniques, '')})`);
    if (entries.length > 0) parts.push(`x AS (${rowsOf(this.t.idx, entries, ' ON CONFLICT DO NOTHING')})`);
    const sql = parts.length === 1 ? insertDoc : `WITH ${parts.join(', ')} SELECT id FROM d`;
    const rows = await this.driver.session.rows<{ id: string }>(sql, [id, JSON.stringify(doc), ...uniques.flat(), ...entries.flat()]);
    return rows.length === 1 ? { inserted: true } : { inserted: false, taken: 'id' };
  }

  /** The insert on a session (a transaction's); throws {@link Taken} for a unique value another document holds. */
  private async insertWith(s: SqlSession, doc: T): Promise<InsertResult> {
    const id = this.schema.id(doc);
    if (this.schema.expiresAt !== undefined) await s.run(`DELETE FROM ${this.t.docs} WHERE id = ? AND expires <= ?`, [id, Date.now()]);
    const added = await s.run(this.driver.insertIgnore(`${this.t.docs} (id, doc, expires) VALUES (?, ?, ?)`), [id, JSON.stringify(doc), this.expiresOf(doc)]);
    if (added === 0) return { inserted: false, taken: 'id' };
    await this.writeEntries(s, id, doc);
    return { inserted: true };
  }

  async update(id: string, change: (doc: T) => T | undefined): Promise<T | undefined> {
    await this.migrated();
    try {
      return await this.driver.transaction(async (s) => {
        const [row] = await s.rows<{ doc: unknown }>(`SELECT doc FROM ${this.t.docs} WHERE id = ? AND (expires IS NULL OR expires > ?)${this.driver.forUpdate}`, [id, Date.now()]);
        if (row === undefined) return undefined;
        const current = this.driver.parse<T>(row.doc);
        const next = change(jsonCopy(current));
        if (next === undefined) return current;
        if (this.schema.id(next) !== id) throw new Error(`storage: an update of ${this.schema.family} changed the id`);
        await s.run(`UPDATE ${this.t.docs} SET doc = ?, expires = ? WHERE id = ?`, [JSON.stringify(next), this.expiresOf(next), id]);
        // Most updates keep every index value (a login's time, a counter): then the entries stay as they are.
        if (!sameEntries(this.schema, current, next)) {
          await s.run(`DELETE FROM ${this.t.idx} WHERE id = ?`, [id]);
          await s.run(`DELETE FROM ${this.t.uniq} WHERE id = ?`, [id]);
          await this.writeEntries(s, id, next);
        }
        return jsonCopy(next);
      });
    } catch (err) {
      if (err instanceof Taken) throw new UniqueTakenError(err.index);
      throw err;
    }
  }

  async delete(id: string): Promise<T | undefined> {
    await this.migrated();
    return this.driver.transaction(async (s) => {
      const [row] = await s.rows<{ doc: unknown; expires: unknown }>(`SELECT doc, expires FROM ${this.t.docs} WHERE id = ?${this.driver.forUpdate}`, [id]);
      if (row === undefined) return undefined;
      await s.run(`DELETE FROM ${this.t.docs} WHERE id = ?`, [id]);
      const expires = row.expires === null ? undefined : Number(row.expires);
      return expires !== undefined && expires <= Date.now() ? undefined : this.driver.parse<T>(row.doc);
    });
  }

  async count(name: string, prefix: string): Promise<number> {
    await this.migrated();
    indexOf(this.schema, name);
    const { from, where, params } = this.range(name, prefix);
    const [row] = await this.driver.session.rows<{ n: unknown }>(`SELECT count(*) AS n FROM ${from} WHERE ${where.join(' AND ')}`, params);
    return Number(row?.n ?? 0);
  }

  /**
   * Where the entries of `name` are (the index table, or for {@link BY_ID} the documents' own
   * table, with no index rows to read), and the conditions of those that start with `prefix`, of
   * live documents; `value` is the column each entry's value is in.
   */
  private range(name: string, prefix: string): { from: string; value: string; where: string[]; params: unknown[] } {
    const byId = name === BY_ID;
    const value = byId ? 'd.id' : 'x.value';
    const where = [...(byId ? [] : ['x.name = ?', 'd.id IS NOT NULL']), `${value} >= ?`, '(d.expires IS NULL OR d.expires > ?)'];
    const stored = byId ? prefix : storedValue(prefix);
    const params: unknown[] = [...(byId ? [] : [name]), stored, Date.now()];
    const end = prefixEnd(stored);
    if (prefix !== '' && end !== undefined) {
      where.push(`${value} < ?`);
      params.push(end);
    }
    return { from: byId ? `${this.t.docs} d` : `${this.t.idx} x ${this.driver.indexFirstJoin} ${this.t.docs} d ON d.id = x.id`, value, where, params };
  }

  async find(name: string, query: IndexQuery): Promise<Page<T>> {
    await this.migrated();
    indexOf(this.schema, name);
    const limit = checkLimit(query.limit);
    const byId = name === BY_ID;
    const { from, value, where, params } = this.range(name, query.prefix);
    if (query.after !== undefined) {
      const after = decodeCursor(query.after);
      // A row comparison: the index scan starts right after the cursor.
      if (byId) where.push('d.id > ?');
      else where.push('(x.name, x.value, x.id) > (?, ?, ?)');
      params.push(...(byId ? [after.id] : [name, storedValue(after.value), after.id]));
    }
    const rows = await this.driver.session.rows<{ value: string; id: string; doc: unknown }>(
      `SELECT ${value} AS value, d.id AS id, d.doc AS doc FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${byId ? 'd.id' : 'x.value, x.id'} LIMIT ${limit + 1}`,
      params,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const valueOf = (stored: string): string => (byId ? stored : valueOfStored(stored));
    return {
      docs: page.map((r) => this.driver.parse<T>(r.doc)),
      values: page.map((r) => valueOf(r.value)),
      next: rows.length > limit && last ? encodeCursor(valueOf(last.value), last.id) : undefined,
    };
  }
}

/**
 * A database reached through a {@link SqlDriver}: every family is a {@link SqlCollection} on it.
 * An adapter sets the driver and says how its connection is released.
 */
export abstract class SqlDatabase implements Database {
  /** The driver every collection of this database uses. */
  protected abstract readonly driver: SqlDriver;

  /** @inheritdoc */
  collection<T>(schema: Schema<T>): Collection<T> {
    return new SqlCollection(this.driver, schema);
  }

  /**
   * The rows of a query of the app's own, outside authgate's tables (`?` marks parameters): how an
   * import reads another system's tables in the same database server.
   */
  readRows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.driver.session.rows<R>(sql, params);
  }

  /** @inheritdoc */
  abstract close(): Promise<void>;
}
