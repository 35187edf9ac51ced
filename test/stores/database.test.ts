import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type Express } from 'express';
import request from 'supertest';
import { createAuth, loggerFunc, senderFunc, type Auth, type AuthOptions } from '../../src';
import { accounts } from '../../src/accounts';
import { organizations } from '../../src/organizations';
import { CookieJar } from '../support/cookie-jar';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';
import { describeMysql, describePostgres, dropSchema, freshMysqlDatabase, sharedServer, startMysql, startPostgres } from '../support/servers';

const SECRET = 'database-test-secret-0123456789abcdef';

/** An app on `options` with the accounts and organizations plugins and no store option of their own. */
function appOn(options: Partial<AuthOptions>, mails: Array<{ to: string; text: string }> = []): { app: Express; auth: Auth } {
  const sender = senderFunc((to, text) => void mails.push({ to, text }));
  const service = accounts({ sender, baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4 });
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, ...options, plugins: [service, organizations({ sender })] });
  auth.addDirectProvider('local', (_user, passwd) => passwd === 'pw');
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use('/account', service.router);
  app.get('/private', auth.middleware().auth, (_req, res) => res.json({ ok: true }));
  return { app, auth };
}

/** Signs an account up on `app` and activates it from its mail. */
async function signUp(app: Express, mails: Array<{ to: string; text: string }>, email: string): Promise<void> {
  await request(app).post('/account/signup').send({ Email: email, Pwd: 'correct horse', PwdRepeat: 'correct horse' }).expect(202);
  const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? '')?.[1] ?? '');
  await request(app)
    .get(link.pathname + link.search)
    .expect(200);
}

async function accountLogin(app: Express, email: string): Promise<CookieJar> {
  const jar = new CookieJar();
  jar.keep(await request(app).post('/auth/accounts/login').send({ user: email, passwd: 'correct horse' }).expect(200));
  return jar;
}

describe('createAuth({ database }): one URI for every store of the service and its plugins (issue 42)', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'authgate-database-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('a level folder: every family in a folder of its own; sessions, accounts, users and organizations survive a restart', async () => {
    const mails: Array<{ to: string; text: string }> = [];
    const first = appOn({ database: `level://${folder}` }, mails);
    await signUp(first.app, mails, 'ann@example.com');
    const ann = await accountLogin(first.app, 'ann@example.com');
    expect((await ann.on(request(first.app).post('/auth/orgs')).send({ name: 'Acme' })).status).toBe(201);
    await first.auth.close();
    expect((await readdir(folder)).sort()).toEqual(['accounts', 'audit', 'avatars', 'credentials', 'organizations', 'state', 'users']);

    const again = appOn({ database: `level://${folder}` }, mails);
    try {
      // The same cookie is still a live session after the restart (the session registry is in the folder).
      await ann.on(request(again.app).get('/private')).expect(200);
      expect(((await ann.on(request(again.app).get('/auth/orgs'))).body as Array<{ name: string }>).map((o) => o.name)).toEqual(['Acme']);
      expect((await again.auth.users.list({})).users.map((u) => u.name)).toEqual(['ann@example.com']);
      await accountLogin(again.app, 'ann@example.com');
    } finally {
      await again.auth.close();
    }
  });

  it('a per-store option overrides the database for its family', async () => {
    const { auth } = appOn({ database: `level://${folder}`, stateStore: 'memory://', auditStore: false });
    await auth.close();
    expect(existsSync(join(folder, 'state'))).toBe(false);
    expect(existsSync(join(folder, 'audit'))).toBe(false);
    expect(existsSync(join(folder, 'users'))).toBe(true);
  });

  it('refuses a URI no store lives on, naming the choices; Redis only as the state store', () => {
    expect(() => appOn({ database: 'redis://127.0.0.1:6379' })).toThrow(/Redis keeps only the state store.*stateStore/);
    expect(() => appOn({ database: 'ftp://127.0.0.1/app' })).toThrow(
      /database must be a URI: memory:\/\/, level:\/\/\/path, postgres:\/\/\.\.\., mysql:\/\/\.\.\., sqlite:\/\/\/path\/file\.db, mongodb:\/\/\.\.\./,
    );
    expect(() => appOn({ database: '' })).toThrow(/database must be a URI/);
    expect(() => appOn({ database: 42 as unknown as string })).toThrow(/database must be a URI/);
  });

  it('in production, warns at start-up which stores would live in memory, naming the database option; not with one', async () => {
    const lines: string[] = [];
    const logger = loggerFunc((line) => void lines.push(line));
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await appOn({ logger }).auth.close();
      expect(lines.filter((l) => l.startsWith('[WARN]'))).toEqual([expect.stringMatching(/the state, credentials, users stores are in memory.*database: process\.env\.DATABASE_URL/)]);
      lines.length = 0;
      await appOn({ logger, database: `level://${folder}` }).auth.close();
      await appOn({ logger, database: 'memory://', stateStore: `level://${folder}/s`, userStore: `level://${folder}/u` }).auth.close();
      expect(lines.filter((l) => l.includes('in memory'))).toEqual([expect.stringMatching(/the credentials store is in memory/)]);
    } finally {
      process.env.NODE_ENV = before;
    }
  });
});

/** Two instances on one `database` and nothing else set: what one does, the other sees. */
function twoInstances(name: string, describeFn: jest.Describe, fresh: () => Promise<{ database: string; drop(): Promise<void> }>): void {
  describeFn(`createAuth({ database }) on ${name}: two instances agree with nothing else set`, () => {
    it('a sign-up on A logs in on B; a session made on A is known to B; an organization made on B lists on A', async () => {
      const { database, drop } = await fresh();
      const mails: Array<{ to: string; text: string }> = [];
      const a = appOn({ database, revocationCheck: 'every-request' }, mails);
      const b = appOn({ database, revocationCheck: 'every-request' }, mails);
      try {
        await signUp(a.app, mails, 'bea@example.com');
        const onB = await accountLogin(b.app, 'bea@example.com');
        await onB.on(request(a.app).get('/private')).expect(200);
        expect((await onB.on(request(b.app).post('/auth/orgs')).send({ name: 'Shared' })).status).toBe(201);
        expect(((await onB.on(request(a.app).get('/auth/orgs'))).body as Array<{ name: string }>).map((o) => o.name)).toEqual(['Shared']);
        expect((await a.auth.users.list({})).users.map((u) => u.name)).toEqual(['bea@example.com']);
        // Logged out on B: refused on A at once (the session registry is shared).
        await onB.on(request(b.app).get('/auth/logout')).expect(200);
        const jar = await accountLogin(b.app, 'bea@example.com');
        await jar.on(request(b.app).post('/auth/sessions/revoke-all')).send({});
        await jar.on(request(a.app).get('/private')).expect(401);
      } finally {
        await a.auth.close();
        await b.auth.close();
        await drop();
      }
    });
  });
}

const postgres = sharedServer(startPostgres);
twoInstances('PostgreSQL', describePostgres, async () => {
  const schema = `db_${randomBytes(6).toString('hex')}`;
  const server = await postgres();
  return { database: `${server.url}?schema=${schema}`, drop: () => dropSchema(server.url, schema) };
});
const mariadb = sharedServer(startMysql);
twoInstances('MySQL (MariaDB)', describeMysql, async () => {
  const fresh = await freshMysqlDatabase((await mariadb()).url);
  return { database: fresh.uri, drop: () => fresh.drop() };
});
twoInstances('MongoDB (the stand-in, or MONGO_URL)', describeMongo, async () => {
  const { uri, db } = await freshMongoUri();
  return { database: uri, drop: () => dropMongoDb(db) };
});
twoInstances('SQLite (one file)', describe, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-database-sqlite-'));
  return { database: `sqlite://${join(dir, 'auth.db')}`, drop: () => rm(dir, { recursive: true, force: true }) };
});
