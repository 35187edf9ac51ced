import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { BenchArgs } from './lib/args';
import { median } from './lib/stats';
import { printTable, verdict } from './lib/table';
import Sqlite from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { createUserStore, UserDirectory, type UserRecord, type UserStore } from '../src';
import { LevelUserStore } from '../src/stores-level';
import { PostgresUserStore } from '../src/stores-postgres';
import { freshMysqlDatabase, startMysql, startPostgres } from '../test/support/servers';

const user = (i: number): UserRecord => ({ id: `u${String(i).padStart(8, '0')}`, name: `User ${i}`, email: `user${i}@example.com`, logins: [], created: 1, lastLogin: 1, status: 'active' });

/** Fills a PostgreSQL user directory with `n` users in SQL (the users family's tables: documents and index rows), fast enough for a million. */
async function fillPostgres(url: string, schema: string, n: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const id = `'u' || lpad(i::text, 8, '0')`;
    const doc = `json_build_object('id', ${id}, 'name', 'User ' || i, 'email', 'user' || i || '@example.com', 'logins', '[]'::json, 'created', 1, 'lastLogin', 1, 'status', 'active')`;
    await client.query(`INSERT INTO "${schema}".authgate_users_doc (id, doc) SELECT ${id}, ${doc} FROM generate_series(1, $1) i`, [n]);
    await client.query(
      `INSERT INTO "${schema}".authgate_users_idx (name, value, id) SELECT 'search', 'user ' || i, ${id} FROM generate_series(1, $1) i
       UNION ALL SELECT 'search', 'user' || i || '@example.com', ${id} FROM generate_series(1, $1) i`,
      [n],
    );
    await client.query(`ANALYZE "${schema}".authgate_users_doc; ANALYZE "${schema}".authgate_users_idx`);
  } finally {
    await client.end();
  }
}

/**
 * Fills the users family's tables of a MySQL or SQLite database with `n` users (n ≤ 1,000,000) in
 * SQL: a table of 1,000 numbers crossed with itself gives the row numbers.
 */
async function fillSql(run: (sql: string) => Promise<unknown>, dialect: 'mysql' | 'sqlite', n: number): Promise<void> {
  const padded = dialect === 'mysql' ? `LPAD(i, 8, '0')` : `substr('00000000' || i, -8)`;
  const text = (...parts: string[]): string => (dialect === 'mysql' ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
  const json = dialect === 'mysql' ? 'JSON_OBJECT' : 'json_object';
  const emptyList = dialect === 'mysql' ? 'JSON_ARRAY()' : "json('[]')";
  await run('CREATE TABLE bench_digits (d INTEGER NOT NULL)');
  await run(`INSERT INTO bench_digits (d) VALUES ${Array.from({ length: 1000 }, (_, i) => `(${i})`).join(', ')}`);
  const numbers = `(SELECT a.d * 1000 + b.d + 1 AS i FROM bench_digits a, bench_digits b WHERE a.d * 1000 + b.d + 1 <= ${n}) seq`;
  const id = text("'u'", padded);
  const doc = `${json}('id', ${id}, 'name', ${text("'User '", 'i')}, 'email', ${text("'user'", 'i', "'@example.com'")}, 'logins', ${emptyList}, 'created', 1, 'lastLogin', 1, 'status', 'active')`;
  await run(`INSERT INTO authgate_users_doc (id, doc) SELECT ${id}, ${doc} FROM ${numbers}`);
  await run(`INSERT INTO authgate_users_idx (name, value, id) SELECT 'search', ${text("'user '", 'i')}, ${id} FROM ${numbers}`);
  await run(`INSERT INTO authgate_users_idx (name, value, id) SELECT 'search', ${text("'user'", 'i', "'@example.com'")}, ${id} FROM ${numbers}`);
  await run('DROP TABLE bench_digits');
}

/** The time of one call in ms. */
async function took(call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The same reads on a small and a large directory, alternating, p50 in ms. */
async function measure(small: UserDirectory, large: UserDirectory, rounds: number): Promise<Array<[string, number, number]>> {
  const deep = async (dir: UserDirectory): Promise<string | undefined> => (await dir.list({ limit: 100 })).next;
  const reads: Record<string, (dir: UserDirectory, cursor: string | undefined) => Promise<unknown>> = {
    'first page by id (20)': (dir) => dir.list({ limit: 20 }),
    'next page by id (cursor)': (dir, cursor) => dir.list({ limit: 20, cursor }),
    'prefix "user" (every user matches)': (dir) => dir.list({ query: 'User', limit: 20 }),
    'prefix "user 9" (a page of many)': (dir) => dir.list({ query: 'user 9', limit: 20 }),
    'prefix "user500@" (one matches)': (dir) => dir.list({ query: 'user500@', limit: 20 }),
  };
  const cursors = new Map([
    [small, await deep(small)],
    [large, await deep(large)],
  ]);
  const rows: Array<[string, number, number]> = [];
  for (const [name, read] of Object.entries(reads)) {
    const times = new Map<UserDirectory, number[]>([
      [small, []],
      [large, []],
    ]);
    // Warm first (prepared statements, plans, caches): the first read of each kind is not what a page costs.
    for (let i = 0; i < 20; i++) for (const dir of [small, large]) await read(dir, cursors.get(dir));
    for (let i = 0; i < rounds; i++) for (const dir of [small, large]) times.get(dir)!.push(await took(() => read(dir, cursors.get(dir))));
    rows.push([name, median(times.get(small)!.slice(rounds / 10)), median(times.get(large)!.slice(rounds / 10))]);
  }
  return rows;
}

/** User directory lists at a thousand users and at many: a page should cost the same. */
export async function userDirectory(args: BenchArgs): Promise<string> {
  const large = args.quick ? 100_000 : 1_000_000;
  const levelLarge = args.quick ? 20_000 : 200_000;
  const rounds = args.quick ? 60 : 300;
  const pg = await startPostgres();
  const dir = await mkdtemp(join(tmpdir(), 'authgate-bench-users-'));
  try {
    const schemas = [`s_${randomBytes(4).toString('hex')}`, `l_${randomBytes(4).toString('hex')}`];
    const [smallPg, largePg] = schemas.map((schema) => new PostgresUserStore(`${pg.url}?schema=${schema}`)) as [PostgresUserStore, PostgresUserStore];
    await Promise.all([smallPg.list({ limit: 1 }), largePg.list({ limit: 1 })]);
    await fillPostgres(pg.url, schemas[0] as string, 1_000);
    await fillPostgres(pg.url, schemas[1] as string, large);
    const pgRows = await measure(new UserDirectory(smallPg), new UserDirectory(largePg), rounds);
    await Promise.all([smallPg.close(), largePg.close()]);

    // SQLite: two files, the tables made by the stores, filled in SQL.
    const sqliteRows = await (async () => {
      const stores = ['small', 'large'].map((name) => createUserStore(`sqlite://${join(dir, `${name}.db`)}`));
      await Promise.all(stores.map((s) => s.list({ limit: 1 })));
      for (const [name, n] of [
        ['small', 1_000],
        ['large', large],
      ] as const) {
        const file = new Sqlite(join(dir, `${name}.db`));
        await fillSql(async (sql) => file.exec(sql), 'sqlite', n);
        file.exec('ANALYZE');
        file.close();
      }
      const rows = await measure(new UserDirectory(stores[0] as UserStore), new UserDirectory(stores[1] as UserStore), rounds);
      await Promise.all(stores.map((s) => s.close()));
      return rows;
    })();
    // MySQL (MariaDB): two databases on one private server.
    // A buffer pool that holds the tables, as a production server's would (the tests' 32 MB does not).
    const mariadb = await startMysql({ bufferPoolMb: 1024 });
    const mysqlRows = await (async () => {
      const fresh = [await freshMysqlDatabase(mariadb.url), await freshMysqlDatabase(mariadb.url)];
      const stores = fresh.map((f) => createUserStore(f.uri));
      await Promise.all(stores.map((s) => s.list({ limit: 1 })));
      for (const [i, n] of [1_000, large].entries()) {
        const url = new URL((fresh[i] as { uri: string }).uri);
        const connection = await mysql.createConnection({ host: url.hostname, port: Number(url.port), user: 'root', database: url.pathname.slice(1) });
        await fillSql((sql) => connection.query(sql), 'mysql', n);
        await connection.query('ANALYZE TABLE authgate_users_doc, authgate_users_idx');
        await connection.end();
      }
      const rows = await measure(new UserDirectory(stores[0] as UserStore), new UserDirectory(stores[1] as UserStore), rounds);
      await Promise.all(stores.map((s) => s.close()));
      return rows;
    })().finally(() => mariadb.destroy());
    const [smallLevel, largeLevel] = [new LevelUserStore(join(dir, 'small')), new LevelUserStore(join(dir, 'large'))];
    for (let i = 1; i <= 1_000; i++) await smallLevel.add(user(i));
    for (let i = 1; i <= levelLarge; i++) await largeLevel.add(user(i));
    const levelRows = await measure(new UserDirectory(smallLevel), new UserDirectory(largeLevel), rounds);
    await Promise.all([smallLevel.close(), largeLevel.close()]);

    const rows = [
      ...pgRows.map(([name, a, b]) => [`PostgreSQL: ${name}`, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
      ...mysqlRows.map(([name, a, b]) => [`MySQL (MariaDB): ${name}`, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
      ...sqliteRows.map(([name, a, b]) => [`SQLite: ${name}`, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
      ...levelRows.map(([name, a, b]) => [`level: ${name}`, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
    ];
    const worst = Math.max(...[...pgRows, ...mysqlRows, ...sqliteRows, ...levelRows].map(([, a, b]) => b / a));
    return printTable(
      `User directory: a page at 1,000 users vs ${large.toLocaleString('en')} (PostgreSQL, MySQL, SQLite) and ${levelLarge.toLocaleString('en')} (level), alternating, p50`,
      ['read', 'ms, 1,000 users', 'ms, many users', 'ratio'],
      rows,
      [`largest ratio ${worst.toFixed(2)} (target <= 1.5: ${verdict(worst <= 1.5)})`],
    );
  } finally {
    await pg.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
