// Benchmark server: the same app (direct login, rate limits counted but never reached, a protected
// route) on a memory state store and on Redis, each on its own port; and the account router on two
// PostgreSQL schemas holding 1,000 and ACCOUNTS accounts. Prints READY with the ports and sessions.
import { listen, loginSession } from '../lib/announce';
import express, { type Express } from 'express';
import { createAccountRouter, createAuth, mustGetUser, senderFunc } from '../../src';
import { PostgresAccountStore } from '../../src/stores-postgres';
import { hashPassword } from '../../src/plugins/accounts/passwords';
import { Client } from 'pg';

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const NEVER = { limit: 1_000_000_000, windowMs: 60_000 };

function authApp(stateStore: string): Express {
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, avatarStore: 'noop://', tokenDuration: 3_600_000, stateStore, rateLimits: { loginPerIp: NEVER, loginPerUser: NEVER } });
  auth.addDirectProvider('local', () => true);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));
  return app;
}

/** Fills a schema with `n` activated accounts in SQL, in the accounts family's tables (`user<i>@example.com`, one bcrypt hash). */
async function fill(uri: string, schema: string, n: number, hash: string): Promise<void> {
  const store = new PostgresAccountStore(`${uri}?schema=${schema}`);
  await store.get('0'.repeat(24)); // creates the tables
  await store.close();
  const client = new Client({ connectionString: uri });
  await client.connect();
  const now = new Date().toISOString();
  const id = `lpad(to_hex(i), 24, '0')`;
  const email = `'user' || i || '@example.com'`;
  await client.query(
    `INSERT INTO "${schema}"."authgate_accounts_doc" (id, doc)
     SELECT ${id}, json_build_object(
       'Id', ${id}, 'Email', ${email}, 'Pwd', $2::text, 'OldPwd', '[]'::json, 'Approved', true,
       'ConfirmCodes', '{}'::json, 'Privilege', '{}'::json, 'JoinDay', $3::text, 'LastActivity', $3::text,
       'Profile', json_build_object('FirstName', '', 'LastName', '', 'MiddleName', '', 'NickName', '', 'Address', '', 'Phone', '', 'Company', ''))
     FROM generate_series(1, $1::int) AS i`,
    [n, hash, now],
  );
  await client.query(`INSERT INTO "${schema}"."authgate_accounts_uniq" (name, value, id) SELECT 'email', ${email}, ${id} FROM generate_series(1, $1::int) AS i`, [n]);
  await client.query(`INSERT INTO "${schema}"."authgate_accounts_idx" (name, value, id) SELECT 'email', ${email}, ${id} FROM generate_series(1, $1::int) AS i`, [n]);
  for (const table of ['doc', 'idx', 'uniq']) await client.query(`ANALYZE "${schema}"."authgate_accounts_${table}"`);
  await client.end();
}

async function main(): Promise<void> {
  const { REDIS_URL = '', DATABASE_URL = '', ACCOUNTS = '1000000' } = process.env;
  const ports: Record<string, number> = { memory: await listen(authApp('memory://')), redis: await listen(authApp(`${REDIS_URL}?prefix=bench:`)) };
  const hash = await hashPassword('scale-password', 4);
  for (const [name, n] of [
    ['small', 1000],
    ['large', Number(ACCOUNTS)],
  ] as const) {
    await fill(DATABASE_URL, `bench_${name}`, n, hash);
    const accounts = createAccountRouter({
      store: `${DATABASE_URL}?schema=bench_${name}`,
      sender: senderFunc(() => undefined),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      rateLimits: false,
    });
    ports[name] = await listen(express().use('/account', accounts));
  }
  console.log(`READY ${JSON.stringify({ ports, memory: await loginSession(ports.memory!, 'bench'), redis: await loginSession(ports.redis!, 'bench') })}`);
}

void main();
