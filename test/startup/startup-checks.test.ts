import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import request from 'supertest';
import express from 'express';
import { createAuth, loggerFunc, type Auth, type AuthOptions } from '../../src';
import { eventually } from '../support/eventually';
import { freePort } from '../support/ports';
import { spawnReady } from '../support/ready-process';
import { SECRET } from '../support/auth-app';
import { describePostgres, startPostgres, type TestServer } from '../support/servers';

/** What console.warn printed, formatted as it formats its arguments. */
const written = (spy: jest.SpyInstance): string => spy.mock.calls.map((args: unknown[]) => format(...args)).join('\n');

/** An auth service whose log lines are kept, with a direct provider `local` (password `pw`). */
function logged(options: Partial<AuthOptions>): { auth: Auth; lines: string[]; app: express.Express } {
  const lines: string[] = [];
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, avatarStore: 'memory://', logger: loggerFunc((l) => lines.push(l)), ...options });
  auth.addDirectProvider('local', (_u, passwd) => passwd === 'pw');
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (_req, res) => res.json({ ok: true }));
  return { auth, lines, app };
}

describe('start-up checks and what the log says', () => {
  const opened: Auth[] = [];
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((a) => a.close()));
    await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
  });

  it('refuses a secret under 32 characters, in every environment; a secretReader is taken as given', () => {
    for (const secret of ['short', 'x'.repeat(31)]) {
      expect(() => createAuth({ url: 'http://127.0.0.1:8080', secret })).toThrow(
        expect.objectContaining({ code: 'config', message: expect.stringMatching(new RegExp(`is ${secret.length} characters: it needs at least 32`)) }),
      );
    }
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secretReader: () => 'go-secret' });
    opened.push(auth);
  });

  it('speaks by default: warnings and errors go to stderr (console.warn), other lines do not', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const port = await freePort();
      const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, userStore: `postgres://app:hunter2@127.0.0.1:${port}/app` });
      opened.push(auth);
      auth.addDirectProvider('local', () => true);
      await eventually(async () => expect(written(warn)).toMatch(/\[ERROR\] at start-up, the user store \(postgres:\/\/127\.0\.0\.1:\d+\/app\) failed: ECONNREFUSED/));
      expect(written(warn)).not.toMatch(/hunter2/);
      // "provider local registered" is an [INFO] line: not written by default.
      expect(log).not.toHaveBeenCalled();
      expect(written(warn)).not.toMatch(/registered/);
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });

  it('a store that fails names its family, its backend and address without the password, and the cause, at start-up and on the request it fails', async () => {
    const port = await freePort();
    const { auth, lines, app } = logged({ database: `postgres://app:hunter2@127.0.0.1:${port}/app?password=also-secret`, storeTimeout: 2000 });
    opened.push(auth);
    await eventually(async () =>
      expect(lines.join('\n')).toMatch(
        /\[ERROR\] at start-up, the state store \(postgres:\/\/127\.0\.0\.1:\d+\/app\) failed: ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+: logins answer 503 until it can be reached/,
      ),
    );
    // One database under several families: said once.
    expect(lines.filter((l) => l.includes('at start-up'))).toHaveLength(1);
    const res = await request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'pw' });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'unavailable' });
    expect(lines.join('\n')).toMatch(/\[ERROR\] .*the (state|user|credential) store \(postgres:\/\/127\.0\.0\.1:\d+\/app\) failed: ECONNREFUSED/);
    expect(lines.join('\n')).not.toMatch(/hunter2|also-secret/);
  });

  it('a level folder held by another process is said at start-up, with the fix', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'authgate-held-'));
    folders.push(folder);
    // Another process opens the users folder first and keeps it.
    const holder = await spawnReady(
      [
        '-e',
        `const { Level } = require('level'); const db = new Level(${JSON.stringify(join(folder, 'users'))}); db.open().then(() => console.log('READY held')); setInterval(() => undefined, 1000);`,
      ],
      { env: { ...process.env, NODE_PATH: join(__dirname, '../../node_modules') } },
    );
    try {
      const { auth, lines } = logged({ userStore: `level://${folder}/users` });
      opened.push(auth);
      await eventually(async () =>
        expect(lines.join('\n')).toMatch(
          /\[ERROR\] at start-up, the user store \(level:\/\/.*\/users\) failed: .*LEVEL_LOCKED.*: another process holds this folder\. A level folder serves one process/,
        ),
      );
    } finally {
      await holder.stop();
    }
  });

  it('a request for another host name than url is logged once, with both names and the fix; ports are not compared', async () => {
    const { auth, lines, app } = logged({});
    opened.push(auth);
    await request(app).get('/auth/list').set('Host', '127.0.0.1:3000').expect(200);
    expect(lines.join('\n')).not.toMatch(/for host/);
    await request(app).get('/auth/list').set('Host', 'localhost:8080').expect(200);
    await request(app).get('/auth/list').set('Host', 'other.example').expect(200);
    const said = lines.filter((l) => l.includes('for host'));
    expect(said).toEqual([
      expect.stringMatching(/^\[WARN\] a request came to the auth routes for host "localhost" but url is http:\/\/127\.0\.0\.1:8080: .*Open the app at http:\/\/127\.0\.0\.1:8080/),
    ]);
    // Behind a proxy the forwarded host is the one the browser used.
    const behind = logged({ url: 'https://app.example' });
    opened.push(behind.auth);
    await request(behind.app).get('/auth/list').set('Host', '10.0.0.5:3000').set('X-Forwarded-Host', 'app.example').expect(200);
    expect(behind.lines.join('\n')).not.toMatch(/for host/);
  });

  it('in-process stores with NODE_ENV=production are a start-up warning that names them and the fix', () => {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const { auth, lines } = logged({});
      opened.push(auth);
      expect(lines.join('\n')).toMatch(/\[WARN\] NODE_ENV is production but the state, credentials, users stores are in memory: .*createAuth\(\{ database: process\.env\.DATABASE_URL \}\)/);
      const { auth: persistent, lines: quiet } = logged({ database: 'memory://' });
      opened.push(persistent);
      expect(quiet.join('\n')).toMatch(/in memory/);
    } finally {
      process.env.NODE_ENV = before;
    }
  });
});

describePostgres('a store on a real PostgreSQL that refuses', () => {
  let pg: TestServer;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterAll(() => pg?.stop());

  it("gives the server's own reason (a database that does not exist) with the address, not a bare name", async () => {
    const uri = pg.url.replace('postgres://postgres@', 'postgres://postgres:not-logged@').replace(/\/postgres$/, '/no_such_db');
    const { auth, lines, app } = logged({ database: uri });
    try {
      await eventually(async () =>
        expect(lines.join('\n')).toMatch(/\[ERROR\] at start-up, the state store \(postgres:\/\/127\.0\.0\.1:\d+\/no_such_db\) failed: .*database "no_such_db" does not exist/),
      );
      expect((await request(app).post('/auth/local/login').send({ user: 'a', passwd: 'pw' })).status).toBe(503);
      expect(lines.join('\n')).not.toMatch(/not-logged/);
    } finally {
      await auth.close();
    }
  });
});
