import type BetterSqlite3 from 'better-sqlite3';
import { configError } from '../../base/errors';
import { loadOptional } from '../../internal/optional';

/** Which SQLite library opens the file: Node's own `node:sqlite` (no native build), or the `better-sqlite3` package. */
export type SqliteDriverName = 'node' | 'better-sqlite3';

/** A prepared statement, as both libraries give it. */
export interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint };
}

/** One open SQLite file, as both libraries give it. */
export interface SqliteConnection {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  readonly inTransaction: boolean;
  close(): void;
}

/** The part of `node:sqlite` used here (its types come with @types/node 22 and later). */
interface NodeSqlite {
  DatabaseSync: new (
    path: string,
    options?: { timeout?: number },
  ) => {
    exec(sql: string): void;
    prepare(sql: string): SqliteStatement;
    readonly isTransaction?: boolean;
    close(): void;
  };
}

let nodeSqlite: NodeSqlite | null | undefined;

/** `node:sqlite` when this Node has it without a flag (22.13 and later), else `null`. */
function loadNodeSqlite(): NodeSqlite | null {
  if (nodeSqlite === undefined) {
    // Node 22 warns that node:sqlite is experimental (24 and later do not): the choice is authgate's,
    // not something the app's operator can act on, so that one warning is kept out of their log.
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      if (/SQLite is an experimental feature/.test(typeof warning === 'string' ? warning : warning.message)) return;
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      nodeSqlite = require('node:sqlite') as NodeSqlite;
    } catch {
      nodeSqlite = null;
    } finally {
      process.emitWarning = emitWarning;
    }
  }
  return nodeSqlite;
}

/** Opens `path` with `node:sqlite` (the default where Node has it) or `better-sqlite3` (when asked, or on an older Node). */
export function openSqlite(path: string, driver: SqliteDriverName | undefined): SqliteConnection {
  const builtIn = driver === 'better-sqlite3' ? null : loadNodeSqlite();
  if (builtIn !== null) {
    const db = new builtIn.DatabaseSync(path, { timeout: 5000 });
    // `isTransaction` came with Node 22.16 and 24: before it, the connection's own flag is kept here.
    let open = false;
    return {
      exec: (sql) => {
        db.exec(sql);
        if (/^\s*BEGIN\b/i.test(sql)) open = true;
        else if (/^\s*(COMMIT|ROLLBACK)\b/i.test(sql)) open = false;
      },
      prepare: (sql) => db.prepare(sql),
      get inTransaction() {
        return db.isTransaction ?? open;
      },
      close: () => db.close(),
    };
  }
  if (driver === 'node') throw configError(`sqlite://…?driver=node needs Node 22.13 or later (this is ${process.version}): upgrade Node, or leave the driver out to use better-sqlite3`);
  const Sqlite = loadOptional<typeof BetterSqlite3>('better-sqlite3', `a sqlite:// store on Node ${process.version} (which has no node:sqlite; Node 22.13 and later need no package)`);
  let db: BetterSqlite3.Database;
  try {
    db = new Sqlite(path);
  } catch (err) {
    // A native module built for another Node says so in words no user should have to decode.
    if (/NODE_MODULE_VERSION|bindings|was compiled against/i.test((err as Error).message ?? ''))
      throw configError(
        `better-sqlite3 is built for another Node than this one (${process.version}): run npm rebuild better-sqlite3, or use Node's own SQLite (leave ?driver=better-sqlite3 out, on Node 22.13 or later)`,
      );
    throw err;
  }
  db.pragma('busy_timeout = 5000');
  return {
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => db.prepare(sql) as unknown as SqliteStatement,
    get inTransaction() {
      return db.inTransaction;
    },
    close: () => void db.close(),
  };
}
