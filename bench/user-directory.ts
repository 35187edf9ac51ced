import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { BenchArgs } from './lib/args';
import { median } from './lib/stats';
import { printTable, verdict } from './lib/table';
import { UserDirectory, type UserRecord } from '../src';
import { LevelUserStore } from '../src/stores/level';
import { PostgresUserStore } from '../src/stores/postgres';
import { startPostgres } from '../test/support/servers';

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
      `INSERT INTO "${schema}".authgate_users_idx (name, value, id) SELECT 'all', '', ${id} FROM generate_series(1, $1) i
       UNION ALL SELECT 'search', 'user ' || i, ${id} FROM generate_series(1, $1) i
       UNION ALL SELECT 'search', 'user' || i || '@example.com', ${id} FROM generate_series(1, $1) i`,
      [n],
    );
    await client.query(`ANALYZE "${schema}".authgate_users_doc; ANALYZE "${schema}".authgate_users_idx`);
  } finally {
    await client.end();
  }
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

    const [smallLevel, largeLevel] = [new LevelUserStore(join(dir, 'small')), new LevelUserStore(join(dir, 'large'))];
    for (let i = 1; i <= 1_000; i++) await smallLevel.add(user(i));
    for (let i = 1; i <= levelLarge; i++) await largeLevel.add(user(i));
    const levelRows = await measure(new UserDirectory(smallLevel), new UserDirectory(largeLevel), rounds);
    await Promise.all([smallLevel.close(), largeLevel.close()]);

    const rows = [
      ...pgRows.map(([name, a, b]) => [`PostgreSQL: ${name}`, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
      ...levelRows.map(([name, a, b]) => [`level: ${name}`, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
    ];
    const worst = Math.max(...[...pgRows, ...levelRows].map(([, a, b]) => b / a));
    return printTable(
      `User directory: a page at 1,000 users vs ${large.toLocaleString('en')} (PostgreSQL) and ${levelLarge.toLocaleString('en')} (level), alternating, p50`,
      ['read', 'ms, 1,000 users', 'ms, many users', 'ratio'],
      rows,
      [`largest ratio ${worst.toFixed(2)} (target <= 1.5: ${verdict(worst <= 1.5)})`],
    );
  } finally {
    await pg.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}
