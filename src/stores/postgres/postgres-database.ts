import { hash } from 'node:crypto';
import { PgDatabase, PgNames, type PgQuery } from '../../internal/postgres';
import { SqlDatabase, sqlText, type SqlDriver, type SqlNaming, type SqlSession } from '../sql/sql';

/** `?` parameters as PostgreSQL numbers them (`$1`, `$2`, ...); the statements here hold no other `?`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * Outside transactions, statements are prepared once per connection (named by their text): a
 * lookup's plan costs more than its run, and a collection sends the same few statements.
 */
function preparedSession(db: PgDatabase): SqlSession {
  const named = (sql: string): { name: string; text: string } => ({ name: `ag_${hash('sha1', sql, 'base64url').slice(0, 20)}`, text: numbered(sql) });
  return {
    rows: async <R>(sql: string, params: readonly unknown[] = []) => (await db.prepared(named(sql), [...params])).rows as R[],
    run: async (sql: string, params: readonly unknown[] = []) => (await db.prepared(named(sql), [...params])).rowCount,
  };
}

function sessionOf(query: PgQuery): SqlSession {
  return {
    rows: async <R>(sql: string, params: readonly unknown[] = []) => (await query(numbered(sql), [...params])).rows as R[],
    run: async (sql: string, params: readonly unknown[] = []) => (await query(numbered(sql), [...params])).rowCount,
  };
}

/** PostgreSQL's names and types for the families' tables in the URI's schema (no connection, no package). */
export function postgresNaming(uri: string): SqlNaming {
  const names = new PgNames(uri);
  return {
    table: (name) => names.table(name),
    indexName: (name) => `"authgate_${name}"`,
    // json, not jsonb: it keeps the text as given, \u0000 escapes included (jsonb refuses them).
    types: { key: 'text COLLATE "C"', value: 'text COLLATE "C"', json: 'json', bigint: 'bigint' },
    migrationsTable: names.migrationsTable(),
    recordVersion: (family, version) => `INSERT INTO ${names.table('migrations')} (family, version) VALUES (${sqlText(family)}, ${version})`,
  };
}

/**
 * Every family in PostgreSQL: `postgres://user:pass@host:5432/db?schema=app` (tables
 * `authgate_<family>_doc`, `_idx` and `_uniq` in the schema, on the pool every store of the URI
 * shares). Writes lock the document's row (`FOR UPDATE`): concurrent updates wait, none is lost.
 */
export class PostgresDatabase extends SqlDatabase {
  private readonly db: PgDatabase;
  protected readonly driver: SqlDriver;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super();
    const db = new PgDatabase(uri);
    this.db = db;
    this.driver = {
      session: preparedSession(db),
      transaction: (work) => db.transaction((query) => work(sessionOf(query))),
      migrate: (family, steps) =>
        db.migrate(
          family,
          steps.map((step) => (typeof step === 'string' ? step : (query: PgQuery) => step(sessionOf(query)))),
        ),
      tableExists: async (session, name) => ((await session.rows<{ t: string | null }>('SELECT to_regclass(?) AS t', [db.table(name)]))[0]?.t ?? null) !== null,
      ...postgresNaming(uri),
      insertIgnore: (rest) => `INSERT INTO ${rest} ON CONFLICT DO NOTHING`,
      forUpdate: ' FOR UPDATE',
      insertInWith: true,
      isUniqueViolation: (err) => (err as { code?: unknown } | null)?.code === '23505',
      indexFirstJoin: 'JOIN',
      parse: <T>(stored: unknown) => stored as T,
    };
  }

  /** @inheritdoc */
  override async close(): Promise<void> {
    await this.db.close();
  }
}
