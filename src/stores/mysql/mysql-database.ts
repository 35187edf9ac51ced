import type { Pool, PoolConnection } from 'mysql2/promise';
import { configError } from '../../base/errors';
import { callDeadline, commandLimitOf } from '../../internal/command-limits';
import { loadOptional } from '../../internal/optional';
import { SharedHandles, type Lease } from '../../internal/shared-handles';
import { applyMigrations, migrationsTableOf, SqlDatabase, sqlText, type SqlDriver, type SqlMigrationStep, type SqlNaming, type SqlSession } from '../sql/sql';

/** One pool per URI, shared by every family of this process on it, and the families migrated through it. */
interface SharedPool {
  pool: Pool;
  migrated: Map<string, Promise<void>>;
}

const pools = new SharedHandles<SharedPool>((shared) => shared.pool.end());

/** MySQL's and MariaDB's code for a deadlock, and for a lock wait that timed out: the transaction is retried. */
const RETRIED = new Set([1213, 1205]);

/** Binary columns come back as bytes: every key and value here is UTF-8 text. */
function texts<R>(rows: unknown): R[] {
  return (rows as Array<Record<string, unknown>>).map((row) => {
    // eslint-disable-next-line no-restricted-syntax -- the table's own column names
    for (const [k, v] of Object.entries(row)) if (Buffer.isBuffer(v)) row[k] = v.toString('utf8');
    return row as R;
  });
}

function sessionOf(target: Pool | PoolConnection): SqlSession {
  return {
    rows: async <R>(sql: string, params: readonly unknown[] = []) => texts<R>((await target.query(sql, [...params]))[0]),
    run: async (sql: string, params: readonly unknown[] = []) => ((await target.query(sql, [...params]))[0] as { affectedRows: number }).affectedRows,
  };
}

/** The database name of a `mysql://` URI. */
function databaseOf(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw configError(`mysql URI ${JSON.stringify(uri.slice(0, 80))} is malformed; use mysql://user:pass@host:3306/app`);
  }
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z0-9_]{1,64}$/.test(name)) throw configError('mysql URI: name the database in the path (letters, digits, _), e.g. mysql://user:pass@host:3306/app');
  return name;
}

/** How long callers wait for a transaction when no store guard said (the default `storeTimeout`). */
const DEFAULT_COMMAND_LIMIT_MS = 5000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const mysqlTypes = {
  table: (name: string) => `\`authgate_${name}\``,
  // Within InnoDB's 3072-byte key: (name, value, id) = 720 + 1600 + 720 bytes.
  types: { key: 'VARBINARY(720)', value: 'VARBINARY(1600)', json: 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin', bigint: 'BIGINT' },
};

/** MySQL's and MariaDB's names and types for the families' tables (no connection, no package). */
export const MYSQL_NAMING: SqlNaming = {
  ...mysqlTypes,
  indexName: (name) => `\`authgate_${name}\``,
  migrationsTable: migrationsTableOf(mysqlTypes),
  recordVersion: (family, version) => `INSERT INTO ${mysqlTypes.table('migrations')} (family, version, applied) VALUES (${sqlText(family)}, ${version}, UNIX_TIMESTAMP() * 1000)`,
};

/**
 * Every family in MySQL 8 or MariaDB 10.11 (`mysql2`, an optional package):
 * `mysql://user:pass@host:3306/app` (tables `authgate_<family>_doc`, `_idx` and `_uniq`, InnoDB). Keys
 * are binary strings (compared byte by byte, no trailing-space padding, on either server). Writes
 * lock the document's row; a transaction InnoDB ends as a deadlock is run again, until its
 * caller's time limit. One that outlives that limit (its statements held by a partition) rolls back
 * instead of committing.
 */
export class MysqlDatabase extends SqlDatabase {
  private readonly lease: Lease<SharedPool>;
  protected readonly driver: SqlDriver;

  /** @param uri - `mysql://user:pass@host:3306/database`. */
  constructor(uri: string) {
    super();
    const database = databaseOf(uri);
    this.lease = pools.acquire(uri, () => {
      const mysql = loadOptional<typeof import('mysql2')>('mysql2', 'a mysql:// store');
      // No FOUND_ROWS: an insert that finds its key counts 0 rows, which is how a taken key is told.
      const pool = mysql.createPool({ uri, connectionLimit: 10, flags: ['-FOUND_ROWS'], charset: 'utf8mb4', supportBigNumbers: true, bigNumberStrings: false }).promise();
      return { pool, migrated: new Map() };
    });
    const { pool, migrated } = this.lease.handle;
    const transaction = async <T>(work: (session: SqlSession) => Promise<T>): Promise<T> => {
      const deadline = callDeadline() ?? Date.now() + (commandLimitOf(uri) ?? DEFAULT_COMMAND_LIMIT_MS);
      for (let attempt = 0; ; attempt++) {
        if (Date.now() > deadline) throw new Error('the transaction outlived the store time limit: not run');
        const connection = await pool.getConnection();
        try {
          await connection.beginTransaction();
          const result = await work(sessionOf(connection));
          // A transaction whose statements a partition held past its caller's 503 rolls back here.
          if (Date.now() > deadline) throw new Error('the transaction outlived the store time limit: rolled back');
          await connection.commit();
          return result;
        } catch (err) {
          await connection.rollback().catch(() => undefined);
          if (!RETRIED.has((err as { errno?: number }).errno ?? 0)) throw err;
          await pause(Math.min(200, 2 ** attempt) * Math.random());
        } finally {
          connection.release();
        }
      }
    };
    const naming = MYSQL_NAMING;
    const migrate = async (family: string, steps: readonly SqlMigrationStep[]): Promise<void> => {
      // DDL commits by itself in MySQL: the steps run on one connection under a named lock, not in a transaction.
      const connection = await pool.getConnection();
      try {
        await connection.query('SELECT GET_LOCK(?, 60)', [`authgate:${database}`]);
        await applyMigrations(sessionOf(connection), naming, family, steps);
      } finally {
        await connection.query('SELECT RELEASE_LOCK(?)', [`authgate:${database}`]).catch(() => undefined);
        connection.release();
      }
    };
    this.driver = {
      session: sessionOf(pool),
      transaction,
      migrate: (family, steps) => {
        let done = migrated.get(family);
        if (done === undefined) {
          done = migrate(family, steps).catch((err: unknown) => {
            migrated.delete(family);
            throw err;
          });
          migrated.set(family, done);
        }
        return done;
      },
      tableExists: async (session, name) =>
        (await session.rows('SELECT 1 AS found FROM information_schema.tables WHERE table_schema = ? AND table_name = ?', [database, `authgate_${name}`])).length > 0,
      ...naming,
      insertIgnore: (rest) => `INSERT INTO ${rest} ON DUPLICATE KEY UPDATE id = id`,
      forUpdate: ' FOR UPDATE',
      insertInWith: false,
      indexFirstJoin: 'STRAIGHT_JOIN',
      parse: <T>(stored: unknown) => JSON.parse(stored as string) as T,
    };
  }

  /** @inheritdoc */
  override async close(): Promise<void> {
    await this.lease.release();
  }
}
