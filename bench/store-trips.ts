import { randomBytes } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import type { BenchArgs } from './lib/args';
import { printTable } from './lib/table';
import { createAuth, senderFunc } from '../src';
import { accounts } from '../src/accounts';
import { organizations } from '../src/organizations';
import { startPostgres } from '../test/support/servers';

/** Statements sent to PostgreSQL, counted where every pool sends them. */
let statements = 0;
const send = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (send as (...a: unknown[]) => unknown).apply(this, args);
} as typeof send;

/** The statements one call sends. */
async function trips(call: () => Promise<unknown>): Promise<number> {
  const before = statements;
  await call();
  // What the answer set off after it (an event written) is the call's too.
  await new Promise((r) => setTimeout(r, 200));
  return statements - before;
}

/**
 * Store round trips (statements sent to PostgreSQL) of the steps of a session, every store on one
 * PostgreSQL database, and the connections the deployment holds: what the storage layer costs a
 * login. Caches are warm (each step is measured the second time it runs).
 */
export async function storeTrips(_args: BenchArgs): Promise<string> {
  const server = await startPostgres();
  const database = `${server.url}?schema=trips_${randomBytes(4).toString('hex')}`;
  const mails: string[] = [];
  const service = accounts({ sender: senderFunc((_to, text) => void mails.push(text)), baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4, store: database });
  const stores = { stateStore: database, userStore: database, credentialStore: database, auditStore: database, avatarStore: database };
  const auth = createAuth({
    url: 'http://127.0.0.1:8080',
    secret: 'store-trips-secret-0123456789abcdef',
    ...stores,
    revocationCheck: 'every-request',
    plugins: [service, organizations({ sender: senderFunc(() => undefined), store: database })],
  });
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use('/account', service.router);
  app.get('/private', auth.middleware().auth, (_req, res) => res.json({ ok: true }));
  const listener = app.listen(0);
  const base = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  const json = { 'content-type': 'application/json', origin: 'http://127.0.0.1:8080' };
  try {
    await fetch(`${base}/account/signup`, { method: 'POST', headers: json, body: JSON.stringify({ Email: 'trips@example.com', Pwd: 'correct horse', PwdRepeat: 'correct horse' }) });
    const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mails.at(-1) ?? '')?.[1] ?? '');
    await fetch(`${base}${link.pathname}${link.search}`);
    const login = async (): Promise<string> => {
      const res = await fetch(`${base}/auth/accounts/login`, { method: 'POST', headers: json, body: JSON.stringify({ user: 'trips@example.com', passwd: 'correct horse' }) });
      return res.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
    };
    await login();
    let cookie = '';
    const rows: Array<[string, number]> = [
      ['account login (POST /auth/accounts/login)', await trips(async () => void (cookie = await login()))],
      ['protected request, revocationCheck every-request (GET /private)', await trips(() => fetch(`${base}/private`, { headers: { cookie } }))],
      ['second protected request', await trips(() => fetch(`${base}/private`, { headers: { cookie } }))],
    ];
    const watcher = new pg.Client({ connectionString: server.url });
    await watcher.connect();
    const { rows: held } = await watcher.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = $1 AND pid <> pg_backend_pid()', ['client backend']);
    await watcher.end();
    return printTable(
      'Store round trips: statements sent to PostgreSQL, every store on one database (warm)',
      ['step', 'statements'],
      rows.map(([name, n]) => [name, n]),
      [`connections this instance holds to PostgreSQL after the run: ${held[0]?.n ?? '?'} (every store and plugin on one URI)`],
    );
  } finally {
    listener.close();
    await auth.close();
    await server.destroy();
  }
}
