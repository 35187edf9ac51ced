import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import type { BenchArgs } from './lib/args';
import { median } from './lib/stats';
import { printTable, verdict } from './lib/table';
import { createAuth, type Auth } from '../src';
import { organizations } from '../src/organizations';
import { senderFunc } from '../src';
import { scim } from '../src/plugins/scim';
import { freshMysqlDatabase, startMysql, startPostgres, type TestServer } from '../test/support/servers';

/** How a database writes the bench's fill: `n` members at once, as the SQL adapters store them. */
interface Dialect {
  name: string;
  start(): Promise<TestServer>;
  /** A fresh database (PostgreSQL: a schema) on the server: its URI, and how to run SQL in it. */
  fresh(url: string): Promise<{ uri: string; sql(text: string, params?: unknown[]): Promise<void>; drop(): Promise<void> }>;
  table(name: string): string;
  /** `1..n` as rows of one column `i`. */
  series(n: number): string;
  concat(...parts: string[]): string;
  text(expr: string): string;
  json(pairs: Record<string, string>): string;
  array(...items: string[]): string;
  /** Index values keep `\u0000` as `\u0001\u0001`. */
  nul: string;
  analyze(tables: string[]): string[];
}

const postgres: Dialect = {
  name: 'PostgreSQL',
  start: () => startPostgres(),
  async fresh(url) {
    const schema = `org_${randomBytes(4).toString('hex')}`;
    const client = new Client({ connectionString: url });
    await client.connect();
    return {
      uri: `${url}?schema=${schema}`,
      sql: async (text, params) => void (await client.query(text.replaceAll('@schema', schema), params)),
      drop: async () => {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  },
  table: (name) => `"@schema".authgate_${name}`,
  series: (n) => `(SELECT generate_series(1, ${n}) AS i) s`,
  concat: (...parts) => parts.join(' || '),
  text: (expr) => `(${expr})::text`,
  json: (pairs) =>
    `json_build_object(${Object.entries(pairs)
      .map(([k, v]) => `'${k}', ${v}`)
      .join(', ')})`,
  array: (...items) => (items.length === 0 ? `'[]'::json` : `json_build_array(${items.join(', ')})`),
  nul: 'chr(1) || chr(1)',
  analyze: (tables) => tables.map((t) => `ANALYZE ${t}`),
};

const mariadb: Dialect = {
  name: 'MySQL (MariaDB)',
  // MariaDB's own default buffer pool (the tests' servers take 32 MB): 100,000 members' tables fit.
  start: () => startMysql({ bufferPoolMb: 128 }),
  async fresh(url) {
    const made = await freshMysqlDatabase(url);
    const parsed = new URL(made.uri);
    const connection = await mysql.createConnection({ host: parsed.hostname, port: Number(parsed.port), user: 'root', database: parsed.pathname.slice(1) });
    return {
      uri: made.uri,
      sql: async (text, params) => void (await connection.query(text, params)),
      drop: async () => {
        await connection.end();
        await made.drop();
      },
    };
  },
  table: (name) => `authgate_${name}`,
  series: (n) => `(SELECT seq AS i FROM seq_1_to_${n}) s`,
  concat: (...parts) => `CONCAT(${parts.join(', ')})`,
  text: (expr) => `CAST(${expr} AS CHAR)`,
  json: (pairs) =>
    `JSON_OBJECT(${Object.entries(pairs)
      .map(([k, v]) => `'${k}', ${v}`)
      .join(', ')})`,
  array: (...items) => `JSON_ARRAY(${items.join(', ')})`,
  nul: 'CHAR(1, 1)',
  analyze: (tables) => [`ANALYZE TABLE ${tables.join(', ')}`],
};

/**
 * Fills `n` people provisioned into one organization: each an active SCIM user and a member
 * record (the families' documents and index entries, written as the adapters write them).
 */
async function fill(d: Dialect, run: (text: string) => Promise<void>, orgId: string, n: number): Promise<void> {
  const org = `'${orgId}'`;
  const uid = d.concat(`'scim_'`, `md5(${d.text('i')})`);
  const scimId = d.concat(`'00000000-0000-4000-8000-'`, `lpad(${d.text('i')}, 12, '0')`);
  const userName = d.concat(`'user'`, d.text('i'), `'@example.com'`);
  const joined = `lpad(${d.text('1000 + i')}, 16, '0')`;
  const memberId = d.concat(org, `'/'`, uid);
  const t = (family: string, kind: string): string => d.table(`${family}_${kind}`);
  const from = `FROM ${d.series(n)}`;
  await run(
    `INSERT INTO ${t('scim_users', 'doc')} (id, doc) SELECT ${scimId}, ${d.json({ id: scimId, orgId: org, userId: uid, userName, active: 'true', emails: d.array(), created: '1', modified: '1', version: '1' })} ${from}`,
  );
  await run(`INSERT INTO ${t('scim_users', 'idx')} (name, value, id) SELECT 'org', ${d.concat(org, d.nul, scimId)}, ${scimId} ${from}`);
  await run(`INSERT INTO ${t('scim_users', 'uniq')} (name, value, id) SELECT 'user_name', ${d.concat(org, d.nul, userName)}, ${scimId} ${from}`);
  await run(`INSERT INTO ${t('scim_users', 'uniq')} (name, value, id) SELECT 'user', ${d.concat(org, d.nul, uid)}, ${scimId} ${from}`);
  await run(`INSERT INTO ${t('org_members', 'doc')} (id, doc) SELECT ${memberId}, ${d.json({ orgId: org, userId: uid, roles: d.array(`'member'`), teams: d.array(), joined: '1000 + i' })} ${from}`);
  await run(`INSERT INTO ${t('org_members', 'idx')} (name, value, id) SELECT 'org', ${d.concat(org, d.nul, joined)}, ${memberId} ${from}`);
  await run(`INSERT INTO ${t('org_members', 'idx')} (name, value, id) SELECT 'user', ${d.concat(uid, d.nul, joined)}, ${memberId} ${from}`);
  await run(`INSERT INTO ${t('org_members', 'idx')} (name, value, id) SELECT 'role', ${d.concat(org, d.nul, `'member'`, d.nul, joined)}, ${memberId} ${from}`);
  for (const statement of d.analyze(['scim_users', 'org_members'].flatMap((f) => ['doc', 'idx', 'uniq'].map((k) => t(f, k))))) await run(statement);
}

/** One app on its own database with one organization of `size` members, its SCIM token and its owner's session. */
interface Target {
  size: number;
  auth: Auth;
  server: Server;
  origin: string;
  token: string;
  /** The owner's cookies and XSRF header. */
  session: Record<string, string>;
  made: string[];
  drop(): Promise<void>;
}

async function target(d: Dialect, url: string, size: number): Promise<Target> {
  const db = await d.fresh(url);
  const orgs = organizations({ sender: senderFunc(() => undefined) });
  const plugin = scim({ maxUsers: 1_000_000 });
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'noop://', database: db.uri, plugins: [orgs, plugin], rateLimits: false });
  auth.addDirectProvider('local', () => true);
  const app = express().use('/auth', auth.handlers().authRouter);
  const server = createServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const login = await fetch(`${origin}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"owner","passwd":"x"}' });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const xsrf = /XSRF-TOKEN=([^;]+)/.exec(cookie)?.[1] ?? '';
  const session = { cookie, 'X-XSRF-TOKEN': xsrf };
  const owner = (await (await fetch(`${origin}/auth/user`, { headers: session })).json()) as { id: string; name: string; picture: string };
  const org = await orgs.service.create(owner, { name: 'Bench', slug: 'bench' });
  const { token } = await plugin.tokens.create(org.id, owner, 'bench', { ip: '127.0.0.1' });
  const t: Target = { size, auth, server, origin, token, session, made: [], drop: db.drop };
  // One person through the service makes the families' tables; the rest are filled in SQL.
  await create(t, `first-${size}@example.com`);
  await fill(d, (text) => db.sql(text), org.id, size - 2);
  return t;
}

const scimHeaders = (t: Target): Record<string, string> => ({ Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/scim+json' });

async function create(t: Target, userName: string): Promise<void> {
  const res = await fetch(`${t.origin}/auth/scim/v2/Users`, { method: 'POST', headers: scimHeaders(t), body: JSON.stringify({ userName, active: true }) });
  if (res.status !== 201) throw new Error(`POST /Users answered ${res.status}: ${await res.text()}`);
  t.made.push(((await res.json()) as { id: string }).id);
}

async function took(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function ok(res: Promise<Response>, status = 200): Promise<void> {
  const answered = await res;
  await answered.arrayBuffer();
  if (answered.status !== status) throw new Error(`answered ${answered.status}`);
}

/** What a directory and the app do most, timed at each size, the sizes alternating. */
const OPERATIONS: Record<string, (t: Target, i: number) => Promise<void>> = {
  'POST /Users (a new person: user, SCIM record, membership)': (t, i) => create(t, `new-${i}@example.com`),
  'PATCH /Users/:id active=false (deactivation: membership ends)': (t, i) =>
    ok(
      fetch(`${t.origin}/auth/scim/v2/Users/${t.made[i + 1]}`, {
        method: 'PATCH',
        headers: scimHeaders(t),
        body: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] }),
      }),
    ),
  'GET /Users?filter=userName eq "…"': (t, i) =>
    ok(fetch(`${t.origin}/auth/scim/v2/Users?filter=${encodeURIComponent(`userName eq "user${(i % 900) + 2}@example.com"`)}`, { headers: scimHeaders(t) })),
  'GET /Users?count=100 (a page, with totalResults)': (t) => ok(fetch(`${t.origin}/auth/scim/v2/Users?count=100`, { headers: scimHeaders(t) })),
  'GET /orgs/:org/members?limit=100 (a page of members)': (t) => ok(fetch(`${t.origin}/auth/orgs/bench/members?limit=100`, { headers: t.session })),
};

/** Creates a second from `clients` directories' connections at once, for `total` creates. */
async function createRate(t: Target, clients: number, total: number): Promise<number> {
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) await create(t, `burst-${next++}@example.com`);
    }),
  );
  return total / (Number(process.hrtime.bigint() - start) / 1e9);
}

/** One database: the operations at each size, and the create rate of six clients at the largest. */
async function onDatabase(d: Dialect, sizes: number[], rounds: number): Promise<string> {
  const server = await d.start();
  const targets: Target[] = [];
  try {
    for (const size of sizes) targets.push(await target(d, server.url, size));
    const rows: Array<Array<string>> = [];
    let worst = 0;
    for (const [name, operation] of Object.entries(OPERATIONS)) {
      const times: number[][] = targets.map(() => []);
      for (let i = 0; i < 10; i++) for (const t of targets) await operation(t, i);
      for (let i = 10; i < rounds + 10; i++) for (const [k, t] of targets.entries()) times[k]!.push(await took(() => operation(t, i)));
      const p50 = times.map(median);
      const ratio = p50[p50.length - 1]! / p50[0]!;
      worst = Math.max(worst, ratio);
      rows.push([name, ...p50.map((v) => v.toFixed(2)), ratio.toFixed(2)]);
    }
    const small = await createRate(targets[0]!, 6, rounds * 2);
    const large = await createRate(targets[targets.length - 1]!, 6, rounds * 2);
    rows.push(['creates a second, 6 clients at once', ...targets.map((_, k) => (k === 0 ? small.toFixed(0) : k === targets.length - 1 ? large.toFixed(0) : '')), (large / small).toFixed(2)]);
    const sizeNames = sizes.map((s) => s.toLocaleString('en'));
    return printTable(
      `Organizations at directory scale on ${d.name}: one organization of ${sizeNames.join(' / ')} members (SCIM over HTTP with its token, p50 ms, sizes alternating)`,
      ['operation', ...sizeNames.map((s) => `ms, ${s}`), `ratio ${sizeNames[sizeNames.length - 1]} / ${sizeNames[0]}`],
      rows,
      [
        `largest ratio ${worst.toFixed(2)} (target <= 1.5: ${verdict(worst <= 1.5)}); creates a second with 6 clients at ${sizeNames[sizeNames.length - 1]} members: ${large.toFixed(0)} (target >= 200: ${verdict(large >= 200)})`,
      ],
    );
  } finally {
    for (const t of targets) {
      t.server.close();
      await t.auth.close();
      await t.drop();
    }
    await server.destroy();
  }
}

/** Issue 62's table: the cost of an organization's member and directory operations at 1,000, 10,000 and 100,000 members, on PostgreSQL and MySQL. */
export async function orgScale(args: BenchArgs): Promise<string> {
  const sizes = args.quick ? [1_000, 5_000] : [1_000, 10_000, 100_000];
  const rounds = args.quick ? 30 : 150;
  const tables: string[] = [];
  for (const d of [postgres, mariadb]) tables.push(await onDatabase(d, sizes, rounds));
  return tables.join('\n');
}
