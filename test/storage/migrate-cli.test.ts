import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { runCli } from '../../src/cli';
import { cli } from '../support/cli';
import { createAccountStore } from '../../src/plugins/accounts/create-account-store';
import { createStateStore } from '../../src/stores/create-state-store';
import { createUserStore } from '../../src/stores/create-user-store';
import { describeMysql, describePostgres, dropSchema, freshMysqlDatabase, sharedServer, startMysql, startPostgres } from '../support/servers';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';

/** Node's own SQLite (its types come with @types/node 22): the file as another program sees it. */
interface SqliteFile {
  prepare(sql: string): { all(): unknown[]; get(): unknown };
  exec(sql: string): void;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DatabaseSync: Sqlite } = require('node:sqlite') as { DatabaseSync: new (path: string) => SqliteFile };

/** Runs `npx authgate ...` in this process: its exit code and what it wrote. */

/** A user, an account and a counter stored and read back through the stores authgate makes on `uri`. */
async function storesWork(uri: string): Promise<void> {
  const users = createUserStore(uri);
  const accounts = createAccountStore(uri);
  try {
    expect(await users.add({ id: 'u1', name: 'Ann', logins: [], created: 1, lastLogin: 1, status: 'active' })).toBe(true);
    expect((await users.get('u1'))?.name).toBe('Ann');
    expect((await accounts.list(0, 10)).total).toBe(0);
  } finally {
    await users.close();
    await accounts.close();
  }
}

describe('npx authgate migrate (issue 42)', () => {
  it('answers usage errors with code 2 and the usage, --help with 0', async () => {
    expect(await cli('--help')).toMatchObject({ code: 0, out: expect.stringMatching(/usage: npx authgate migrate/) });
    expect(await cli('migrate')).toMatchObject({ code: 2, out: expect.stringMatching(/name the database: --database <uri> or DATABASE_URL/) });
    expect(await cli('frobnicate')).toMatchObject({ code: 2, out: expect.stringMatching(/unknown command "frobnicate"/) });
    expect(await cli('migrate', '--database', 'memory://')).toMatchObject({ code: 2, out: expect.stringMatching(/nothing to migrate/) });
    expect(await cli('migrate', '--print', '--database', 'level:///tmp/x')).toMatchObject({ code: 2, out: expect.stringMatching(/--print prints SQL/) });
    expect(await cli('migrate', '--database', 'ftp://x')).toMatchObject({ code: 2, out: expect.stringMatching(/database must be a URI/) });
    const env = await runCli(['migrate'], () => undefined, { DATABASE_URL: 'memory://' });
    expect(env).toBe(2);
  });

  it('SQLite: makes every table once; a second run changes nothing; the stores then work', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-cli-'));
    try {
      const uri = `sqlite://${join(dir, 'auth.db')}`;
      const first = await cli('migrate', '--database', uri);
      expect(first).toMatchObject({ code: 0, out: expect.stringMatching(/accounts: ready[\s\S]*state: ready[\s\S]*migrated: sqlite:/) });
      const file = new Sqlite(join(dir, 'auth.db'));
      const tables = (file.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
      const versions = (file.prepare('SELECT count(*) AS n FROM authgate_migrations').get() as { n: number }).n;
      file.close();
      expect(tables).toEqual(
        expect.arrayContaining([
          'authgate_accounts_doc',
          'authgate_audit_idx',
          'authgate_org_invitations_uniq',
          'authgate_sso_connections_doc',
          'authgate_scim_users_uniq',
          'authgate_scim_settings_doc',
          'authgate_state_doc',
          'authgate_avatars_doc',
          'authgate_migrations',
        ]),
      );
      expect((await cli('migrate', '--database', uri)).code).toBe(0);
      const again = new Sqlite(join(dir, 'auth.db'));
      expect((again.prepare('SELECT count(*) AS n FROM authgate_migrations').get() as { n: number }).n).toBe(versions);
      again.close();
      await storesWork(uri);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('SQLite: a file in a folder that does not exist yet is made with its folder, as a level folder is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-cli-'));
    try {
      expect((await cli('migrate', '--database', `sqlite://${join(dir, 'not', 'yet', 'auth.db')}`)).code).toBe(0);
      await storesWork(`sqlite://${join(dir, 'not', 'yet', 'auth.db')}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('SQLite: the printed script, run by sqlite itself, leaves authgate nothing to make', async () => {
    const printed = await cli('migrate', '--print', '--database', 'sqlite:///nowhere/auth.db');
    expect(printed.code).toBe(0);
    const dir = await mkdtemp(join(tmpdir(), 'authgate-cli-'));
    try {
      const file = new Sqlite(join(dir, 'auth.db'));
      file.exec(printed.out);
      const before = (file.prepare('SELECT count(*) AS n FROM authgate_migrations').get() as { n: number }).n;
      file.close();
      await storesWork(`sqlite://${join(dir, 'auth.db')}`);
      const after = new Sqlite(join(dir, 'auth.db'));
      // Only the copy steps (code, not SQL) were left to authgate.
      const added = (after.prepare('SELECT count(*) AS n FROM authgate_migrations').get() as { n: number }).n - before;
      after.close();
      expect(added).toBeLessThanOrEqual(printed.out.split('\n').filter((l) => /^-- store:.* copies the rows/.test(l)).length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  const postgres = sharedServer(startPostgres);
  describePostgres('PostgreSQL', () => {
    it('applies every store (the state and avatar tables too), and the printed script does the same work', async () => {
      const server = await postgres();
      const applied = `m_${randomBytes(5).toString('hex')}`;
      const printed = `p_${randomBytes(5).toString('hex')}`;
      const client = new Client({ connectionString: server.url });
      await client.connect();
      try {
        expect(await cli('migrate', '--database', `${server.url}?schema=${applied}`)).toMatchObject({ code: 0, out: expect.stringMatching(/state, avatars: ready/) });
        const script = await cli('migrate', '--print', '--database', `postgres://nobody:secret@127.0.0.1:1/none?schema=${printed}`);
        expect(script.code).toBe(0);
        expect(script.out).not.toMatch(/secret/);
        await client.query(script.out);
        const tablesOf = async (schema: string): Promise<string[]> =>
          (await client.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema])).rows.map((r) => r.t);
        expect(await tablesOf(printed)).toEqual(await tablesOf(applied));
        expect(await tablesOf(printed)).toEqual(expect.arrayContaining(['authgate_state', 'authgate_avatars', 'authgate_users_doc', 'authgate_migrations']));
        await storesWork(`${server.url}?schema=${printed}`);
        const state = createStateStore(`${server.url}?schema=${printed}`);
        await state.set('k', 1, 60_000);
        await state.close();
      } finally {
        await client.end();
        await dropSchema(server.url, applied);
        await dropSchema(server.url, printed);
      }
    });
  });

  const mariadb = sharedServer(startMysql);
  describeMysql('MySQL (MariaDB)', () => {
    it('applies every store, and the printed script, run by the server, leaves authgate nothing but the copies', async () => {
      const server = await mariadb();
      const applied = await freshMysqlDatabase(server.url);
      const printed = await freshMysqlDatabase(server.url);
      try {
        expect((await cli('migrate', '--database', applied.uri)).code).toBe(0);
        const script = await cli('migrate', '--print', '--database', printed.uri);
        const target = new URL(printed.uri);
        const connection = await mysql.createConnection({ host: target.hostname, port: Number(target.port), user: 'root', database: target.pathname.slice(1), multipleStatements: true });
        try {
          await connection.query(script.out);
          const [rows] = await connection.query('SELECT count(*) AS n FROM authgate_migrations');
          expect(Number((rows as Array<{ n: number }>)[0]?.n)).toBeGreaterThan(40);
        } finally {
          await connection.end();
        }
        await storesWork(printed.uri);
      } finally {
        await applied.drop();
        await printed.drop();
      }
    });
  });

  describeMongo('MongoDB', () => {
    it('applies every store on the stand-in (or MONGO_URL)', async () => {
      const { uri, db } = await freshMongoUri();
      try {
        expect(await cli('migrate', '--database', uri)).toMatchObject({ code: 0, out: expect.stringMatching(/audit: ready/) });
        await storesWork(uri);
      } finally {
        await dropMongoDb(db);
      }
    });
  });
});
