import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { Client } from 'pg';
import request from 'supertest';
import { createAccountRouter, createAuth, createCredentialStore, createStateStore, createUserStore, EmailSender, mustGetUser } from '../../src';
import { createAccountStore } from '../../src/accounts';
import { openPgPools } from '../../src/internal/postgres';
import { SECRET } from '../support/auth-app';
import { describePostgres, sharedServer, startPostgres } from '../support/servers';

const postgres = sharedServer(startPostgres);

/** Client connections the server holds to its databases now, besides the one asking. */
async function serverConnections(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

describePostgres('one connection pool per database', () => {
  it('every store family on one DATABASE_URL shares one pool: a login burst holds at most pool_max connections (+ the LISTEN one), and closing one family leaves the others working', async () => {
    const server = await postgres();
    const db = `${server.url}?schema=shared&pool_max=6`;
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, stateStore: db, credentialStore: db, avatarStore: db, userStore: db, revocationCheck: 'every-request' });
    auth.addDirectProvider('local', (_u, p) => p === 'pw');
    const accounts = createAccountRouter({
      store: db,
      stateStore: db,
      sender: new EmailSender({ host: '127.0.0.1', port: 9, from: 'a@app.example' }),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
    });
    expect(openPgPools()).toBe(1);
    const app = express();
    app.use('/auth', auth.handlers().authRouter);
    app.use('/account', accounts);
    app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));

    const logins = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        request(app)
          .post('/auth/local/login')
          .send({ user: `user-${i}`, passwd: 'pw' }),
      ),
    );
    expect(logins.map((r) => r.status)).toEqual(Array(40).fill(200));
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(app)
          .post('/account/signup')
          .send({ Email: `s${i}@example.com`, Pwd: 'sign-up-password', PwdRepeat: 'sign-up-password' }),
      ),
    );
    // The pool (6) and the state store's LISTEN connection; four pools would hold up to 24.
    expect(await serverConnections(server.url)).toBeLessThanOrEqual(7);
    expect((await auth.users.list({ limit: 100 })).users).toHaveLength(40);

    await accounts.close();
    expect(openPgPools()).toBe(1);
    await request(app).post('/auth/local/login').send({ user: 'after', passwd: 'pw' }).expect(200);
    expect(await auth.users.get((await auth.users.list({ query: 'after' })).users[0]?.id ?? '')).toBeDefined();
    await auth.close();
    expect(openPgPools()).toBe(0);
  });
});

describe('one LevelDB per folder', () => {
  it('accounts, credentials and users share a folder in one process; closing one leaves the others open; state or avatars there is refused at start-up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-shared-level-'));
    const uri = `level://${dir}`;
    try {
      const credentials = createCredentialStore(uri);
      const users = createUserStore(uri);
      const accountStore = createAccountStore(uri);
      await credentials.add({ id: 'c1', userId: 'u1', kind: 'passkey', label: 'k', created: 1, lastUsed: 0, data: {} });
      await users.add({ id: 'u1', name: 'Una', logins: [], created: 1, lastLogin: 1, status: 'active' });
      expect(() => createStateStore(uri)).toThrow(/held by another kind of store/);
      await accountStore.close();
      expect((await credentials.get('c1'))?.userId).toBe('u1');
      expect((await users.list({ limit: 10 })).users.map((u) => u.id)).toEqual(['u1']);
      await credentials.close();
      await users.close();
      const state = createStateStore(uri);
      await state.set('k', 1, 60_000);
      await state.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
