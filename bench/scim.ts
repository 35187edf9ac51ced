import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from 'pg';
import type { BenchArgs } from './lib/args';
import { median } from './lib/stats';
import { printTable, verdict } from './lib/table';
import { createAuth, senderFunc, type Auth } from '../src';
import { organizations } from '../src/organizations';
import { scim } from '../src/plugins/scim';
import { startPostgres } from '../test/support/servers';

/** One app on its own PostgreSQL schema with one organization, its SCIM token, and `n` provisioned users. */
interface ScimTarget {
  auth: Auth;
  server: Server;
  base: string;
  token: string;
  someId: string;
}

/** Index values as the SQL adapters keep them: `\u0000` is stored as `\u0001\u0001`. */
const NUL = `chr(1) || chr(1)`;

/**
 * Adds `n` inactive SCIM users to the scim_users family's tables in SQL (documents, the `org`
 * index, the unique `user_name` and `user` values): fast enough for 100,000. Inactive users are
 * in no organization, so nothing else needs filling.
 */
async function fillUsers(url: string, schema: string, orgId: string, n: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const id = `'00000000-0000-4000-8000-' || lpad(i::text, 12, '0')`;
    const userName = `'user' || i || '@example.com'`;
    const userId = `'scim_' || md5(i::text) || 'abcdefgh'`;
    const doc = `json_build_object('id', ${id}, 'orgId', $2::text, 'userId', ${userId}, 'userName', ${userName}, 'active', false, 'emails', '[]'::json, 'created', 1, 'modified', 1, 'version', 1)`;
    const table = (kind: string): string => `"${schema}".authgate_scim_users_${kind}`;
    await client.query(`INSERT INTO ${table('doc')} (id, doc) SELECT ${id}, ${doc} FROM generate_series(1, $1) i`, [n, orgId]);
    await client.query(`INSERT INTO ${table('idx')} (name, value, id) SELECT 'org', $2::text || ${NUL} || ${id}, ${id} FROM generate_series(1, $1) i`, [n, orgId]);
    await client.query(
      `INSERT INTO ${table('uniq')} (name, value, id) SELECT 'user_name', $2::text || ${NUL} || ${userName}, ${id} FROM generate_series(1, $1) i
       UNION ALL SELECT 'user', $2::text || ${NUL} || ${userId}, ${id} FROM generate_series(1, $1) i`,
      [n, orgId],
    );
    await client.query(`ANALYZE ${table('doc')}; ANALYZE ${table('idx')}; ANALYZE ${table('uniq')}`);
  } finally {
    await client.end();
  }
}

async function target(url: string, n: number): Promise<ScimTarget> {
  const schema = `scim_${randomBytes(4).toString('hex')}`;
  const database = `${url}?schema=${schema}`;
  const orgs = organizations({ sender: senderFunc(() => undefined), store: database });
  const plugin = scim({ store: database });
  // A directory's burst is what is measured, not the per-token limit (600 a minute).
  const auth = createAuth({
    url: 'http://127.0.0.1:8080',
    secret: 'bench-secret-0123456789abcdef0123456789',
    avatarStore: 'noop://',
    database,
    plugins: [orgs, plugin],
    rateLimits: { scimPerToken: { limit: 1_000_000, windowMs: 60_000 } },
  });
  const owner = { id: 'local_0123456789abcdef0123456789abcdef01234567', name: 'owner', picture: '' };
  const org = await orgs.service.create(owner, { name: 'Bench', slug: 'bench' });
  const { token } = await plugin.tokens.create(org.id, owner, 'bench', { ip: '127.0.0.1' });
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  const server = createServer(app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/scim/v2`;
  // One user through the service makes the family's tables; the rest are filled in SQL.
  const made = await fetch(`${base}/Users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' },
    body: JSON.stringify({ userName: 'first@example.com' }),
  });
  if (made.status !== 201) throw new Error(`POST /Users answered ${made.status}`);
  await fillUsers(url, schema, org.id, n - 1);
  return { auth, server, base, token, someId: ((await made.json()) as { id: string }).id };
}

async function took(call: () => Promise<Response>): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await call();
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`answered ${res.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The SCIM reads a directory makes most, at 1,000 provisioned users and at 100,000, on PostgreSQL. */
export async function scimBench(args: BenchArgs): Promise<string> {
  const large = args.quick ? 20_000 : 100_000;
  const rounds = args.quick ? 60 : 300;
  const pg = await startPostgres();
  const targets: ScimTarget[] = [];
  try {
    targets.push(await target(pg.url, 1_000), await target(pg.url, large));
    const get = (t: ScimTarget, path: string) => (): Promise<Response> => fetch(`${t.base}${path}`, { headers: { Authorization: `Bearer ${t.token}` } });
    const reads: Record<string, (t: ScimTarget, i: number) => () => Promise<Response>> = {
      'GET /Users?filter=userName eq "…" (one of them)': (t, i) => get(t, `/Users?filter=${encodeURIComponent(`userName eq "user${(i % 900) + 2}@example.com"`)}`),
      'GET /Users?filter=userName eq "…" (nobody)': (t) => get(t, `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`),
      'GET /Users?filter=externalId eq "…"': (t) => get(t, `/Users?filter=${encodeURIComponent('externalId eq "00ujl29u0le5T6Aj10h7"')}`),
      'GET /Users/:id': (t) => get(t, `/Users/${t.someId}`),
      'GET /Users?count=0 (totalResults)': (t) => get(t, '/Users?count=0'),
    };
    const rows: Array<[string, number, number]> = [];
    for (const [name, read] of Object.entries(reads)) {
      const times: number[][] = [[], []];
      for (let i = 0; i < 20; i++) for (const t of targets) await took(read(t, i));
      for (let i = 0; i < rounds; i++) for (const [k, t] of targets.entries()) times[k]!.push(await took(read(t, i)));
      rows.push([name, median(times[0]!), median(times[1]!)]);
    }
    const indexed = rows.filter(([name]) => !name.includes('count=0'));
    const worst = Math.max(...indexed.map(([, a, b]) => b / a));
    return printTable(
      `SCIM: the directory's reads at 1,000 provisioned users vs ${large.toLocaleString('en')} (PostgreSQL, over HTTP with the token, alternating, p50)`,
      ['request', 'ms, 1,000 users', `ms, ${large.toLocaleString('en')} users`, 'ratio'],
      rows.map(([name, a, b]) => [name, a.toFixed(2), b.toFixed(2), (b / a).toFixed(2)]),
      [
        `largest ratio of the index-backed reads ${worst.toFixed(2)} (target <= 1.5: ${verdict(worst <= 1.5)}); count=0 counts the organization's index entries (it grows with the users, as a count does)`,
      ],
    );
  } finally {
    for (const t of targets) {
      t.server.close();
      await t.auth.close();
    }
    await pg.destroy();
  }
}
