import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { configError } from '../../base/errors';
import { SharedHandles, type Lease } from '../../internal/shared-handles';
import { applyMigrations, migrationsTableOf, SqlDatabase, sqlText, type SqlDriver, type SqlNaming, type SqlSession } from '../sql/sql';
import { openSqlite, type SqliteConnection, type SqliteDriverName, type SqliteStatement } from './sqlite-connection';

/** One SQLite file of this process: its connection, its prepared statements, and the queue every call waits in. */
interface SqliteFile {
  db: SqliteConnection;
  statements: Map<string, SqliteStatement>;
  /** One call at a time: a transaction awaits between its statements, and nothing else may run on the connection meanwhile. */
  tail: Promise<unknown>;
}

const files = new SharedHandles<SqliteFile>(async (file) => file.db.close());

/** The file of a `sqlite:///abs/path.db` or `sqlite://./relative.db` URI, and the driver its `?driver=` names. */
export function sqliteTarget(uri: string): { path: string; driver: SqliteDriverName | undefined } {
  const match = /^sqlite:\/\/(.+?)(?:\?driver=(node|better-sqlite3))?$/i.exec(uri);
  const path = match?.[1] === undefined ? '' : decodeURIComponent(match[1]);
  if (path === '' || path === '/' || path.includes('?'))
    throw configError(
      `sqlite URI ${JSON.stringify(uri.slice(0, 80))} needs a file: sqlite:///var/lib/app/auth.db (absolute) or sqlite://./var/auth.db, and at most ?driver=node or ?driver=better-sqlite3`,
    );
  return { path: resolve(path), driver: match?.[2]?.toLowerCase() as SqliteDriverName | undefined };
}

/** The file of a `sqlite:///abs/path.db` or `sqlite://./relative.db` URI. */
export function sqlitePath(uri: string): string {
  return sqliteTarget(uri).path;
}

function openFile(path: string, driver: SqliteDriverName | undefined): SqliteFile {
  // As a level folder is made when missing, so is the file's folder (SQLite makes only the file).
  mkdirSync(dirname(path), { recursive: true });
  const db = openSqlite(path, driver);
  // WAL lets readers of other processes work beside a writer; the busy timeout (set on opening) waits for their locks.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA foreign_keys = ON');
  return { db, statements: new Map(), tail: Promise.resolve() };
}

const sqliteTypes = { table: (name: string) => `"authgate_${name}"`, types: { key: 'TEXT', value: 'TEXT', json: 'TEXT', bigint: 'INTEGER' } };

/** SQLite's names and types for the families' tables (no file, no package). */
export const SQLITE_NAMING: SqlNaming = {
  ...sqliteTypes,
  indexName: (name) => `"authgate_${name}"`,
  migrationsTable: migrationsTableOf(sqliteTypes),
  recordVersion: (family, version) =>
    `INSERT INTO ${sqliteTypes.table('migrations')} (family, version, applied) VALUES (${sqlText(family)}, ${version}, CAST(strftime('%s', 'now') AS INTEGER) * 1000)`,
};

/**
 * Every family in one SQLite file, through Node's own `node:sqlite` (Node 22.13 and later: no
 * package, no native build) or, with `?driver=better-sqlite3` or on an older Node, the optional
 * package `better-sqlite3` 12: one machine, kept
 * across restarts; several processes of one machine may share the file (SQLite locks it). Calls of
 * this process run one at a time, and a transaction holds the write lock (`BEGIN IMMEDIATE`) from
 * its start, so an update never loses another.
 */
export class SqliteDatabase extends SqlDatabase {
  private readonly lease: Lease<SqliteFile>;
  protected readonly driver: SqlDriver;

  /** @param uri - `sqlite:///path/to/file.db`. */
  constructor(uri: string) {
    super();
    const { path, driver } = sqliteTarget(uri);
    this.lease = files.acquire(path, () => openFile(path, driver));
    const file = this.lease.handle;
    const prepared = (sql: string): SqliteStatement => {
      let statement = file.statements.get(sql);
      if (statement === undefined) {
        statement = file.db.prepare(sql);
        file.statements.set(sql, statement);
      }
      return statement;
    };
    const direct: SqlSession = {
      rows: async <R>(sql: string, params: readonly unknown[] = []) => prepared(sql).all(...params) as R[],
      run: async (sql: string, params: readonly unknown[] = []) => Number(prepared(sql).run(...params).changes),
    };
    const queued = <T>(work: () => Promise<T>): Promise<T> => {
      const result = file.tail.then(work, work);
      file.tail = result.catch(() => undefined);
      return result;
    };
    const transaction = <T>(work: (session: SqlSession) => Promise<T>): Promise<T> =>
      queued(async () => {
        file.db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work(direct);
          file.db.exec('COMMIT');
          return result;
        } catch (err) {
          if (file.db.inTransaction) file.db.exec('ROLLBACK');
          throw err;
        }
      });
    const naming = SQLITE_NAMING;
    this.driver = {
      session: { rows: (sql, params) => queued(() => direct.rows(sql, params)), run: (sql, params) => queued(() => direct.run(sql, params)) },
      transaction,
      migrate: (family, steps) => transaction((s) => applyMigrations(s, naming, family, steps)),
      tableExists: async (session, name) => (await session.rows("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?", [`authgate_${name}`])).length > 0,
      ...naming,
      insertIgnore: (rest) => `INSERT OR IGNORE INTO ${rest}`,
      forUpdate: '',
      insertInWith: false,
      indexFirstJoin: 'LEFT JOIN',
      parse: <T>(stored: unknown) => JSON.parse(stored as string) as T,
    };
  }

  /** @inheritdoc */
  override async close(): Promise<void> {
    await this.lease.release();
  }
}
