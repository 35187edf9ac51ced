import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import bcrypt from 'bcrypt';
import { Client } from 'pg';
import request from 'supertest';
import { hashId } from '../../src';
import { cli } from '../support/cli';
import { importedAccountId } from '../../src/plugins/accounts/import/import-accounts';
import { createOrgStore } from '../../src/plugins/organizations/create-org-store';
import { makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { describePostgres, sharedServer, startPostgres } from '../support/servers';

// Sources read from another system's database: better-auth's tables made by better-auth itself (its
// own migrations and sign-up, in a Node of its own: it is an ES module), and Supabase Auth's tables
// as Supabase documents its auth schema, on a private PostgreSQL (and better-auth on SQLite too).

const run = promisify(execFile);

/** better-auth with e-mail and password, on a PostgreSQL pool or a SQLite file: its migrations, then its own sign-up for each person. */
async function betterAuthWith(database: { postgres: string } | { sqlite: string }, people: Array<{ email: string; password: string; name: string }>, withOrganization = false): Promise<string[]> {
  const script = `
    import { betterAuth } from 'better-auth';
    import { getMigrations } from 'better-auth/db/migration';
    const [kind, where, peopleJson, withOrganization] = process.argv.slice(1);
    let database, done;
    if (kind === 'postgres') {
      const { Pool } = (await import('pg')).default;
      database = new Pool({ connectionString: where });
      done = () => database.end();
    } else {
      // Node's own SQLite, which better-auth takes as it takes better-sqlite3.
      const { DatabaseSync } = await import('node:sqlite');
      database = new DatabaseSync(where);
      done = () => database.close();
    }
    const plugins = withOrganization === 'yes' ? [(await import('better-auth/plugins')).organization()] : [];
    const options = { database, secret: 'better-auth-secret-0123456789abcdef', baseURL: 'http://127.0.0.1:3000', emailAndPassword: { enabled: true }, plugins };
    await (await getMigrations(options)).runMigrations();
    const auth = betterAuth(options);
    const ids = [];
    for (const p of JSON.parse(peopleJson)) ids.push((await auth.api.signUpEmail({ body: p })).user.id);
    if (withOrganization === 'yes') {
      // The first person makes an organization (its owner) and adds the second as an admin, as the server API does.
      const org = await auth.api.createOrganization({ body: { name: 'Acme Widgets', slug: 'acme-widgets', userId: ids[0] } });
      await auth.api.addMember({ body: { userId: ids[1], role: 'admin', organizationId: org.id } });
    }
    await done();
    process.stdout.write(JSON.stringify(ids));`;
  const [kind, where] = 'postgres' in database ? ['postgres', database.postgres] : ['sqlite', database.sqlite];
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, kind, where, JSON.stringify(people), withOrganization ? 'yes' : 'no'], { cwd: join(__dirname, '../..') });
  return JSON.parse(stdout) as string[];
}

describe('npx authgate import from the databases of better-auth and Supabase', () => {
  let dir: string;
  let peer: SmtpPeer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-import-db-'));
    peer = await startSmtpPeer();
  });
  afterAll(async () => {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function imported(
    source: string,
    from: string,
    database: string,
    ...more: string[]
  ): Promise<{ code: number; out: string; rows: Array<{ sourceId?: string; outcome: string; reason?: string }> }> {
    const reportFile = join(dir, `${source}-${Date.now()}.json`);
    const { code, out } = await cli('import', '--from', source, from, '--database', database, '--report', reportFile, ...more);
    const rows = (JSON.parse(await readFile(reportFile, 'utf8')) as { rows: Array<{ line: number; sourceId?: string; outcome: string; reason?: string }> }).rows.sort((a, b) => a.line - b.line);
    return { code, out, rows };
  }

  it('better-auth on SQLite: its users sign in here with the passwords better-auth hashed, and a second run changes nothing', async () => {
    const file = join(dir, 'better-auth.db');
    const [annId] = await betterAuthWith({ sqlite: file }, [
      { email: 'ann@example.com', password: 'ann-better-pw', name: 'Ann Better' },
      { email: 'ben@example.com', password: 'ben-better-pw', name: 'Ben' },
    ]);
    const database = `sqlite://${join(dir, 'app.db')}`;
    const first = await imported('better-auth', `sqlite://${file}`, database);
    expect([first.code, first.out.split('\n')[0]]).toEqual([0, expect.stringMatching(/^created 2, merged 0, unchanged 0, conflicts 0, skipped 0/)]);
    expect((await imported('better-auth', `sqlite://${file}`, database)).out).toMatch(/^created 0, merged 0, unchanged 2/);
    const { app, accounts } = makeAccountApp(peer, { store: database });
    try {
      // better-auth leaves addresses unverified until its own mail is clicked: here too, so activate first.
      const ann = await accounts.store.get(importedAccountId('better-auth', annId as string));
      expect([ann?.Email, ann?.Profile.FirstName, ann?.Profile.LastName, ann?.Approved]).toEqual(['ann@example.com', 'Ann', 'Better', false]);
      await accounts.store.update(ann!.Id, (a) => ({ ...a, Approved: true }));
      const token = (password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email: 'ann@example.com', password });
      expect((await token('ann-better-pw')).status).toBe(200);
      expect((await token('ann-other-pw')).status).toBe(401);
    } finally {
      await accounts.close();
    }
    // A database is read again from its start: no checkpoint counts its rows.
    expect(await cli('import', '--from', 'better-auth', `sqlite://${file}`, '--database', database, '--checkpoint', join(dir, 'ba.checkpoint'))).toEqual({
      code: 2,
      out: expect.stringMatching(/--checkpoint is for files/),
    });
    // Not better-auth's database: a usage error that says so (exit 2), not a crash.
    expect(await cli('import', '--from', 'better-auth', `sqlite://${join(dir, 'empty.db')}`, '--database', database)).toEqual({
      code: 2,
      out: expect.stringMatching(/better-auth: its tables cannot be read in this database \(no such table: user\)/),
    });
  });

  const postgres = sharedServer(startPostgres);
  describePostgres('on PostgreSQL', () => {
    async function freshDatabase(name: string): Promise<string> {
      const server = await postgres();
      const admin = new Client({ connectionString: server.url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return server.url.replace(/\/postgres$/, `/${name}`);
    }

    it('better-auth on PostgreSQL: the credential account gives the password, a GitHub account is linked by its numeric id', async () => {
      const source = await freshDatabase(`ba_${Date.now().toString(36)}`);
      const [carlId, dinaId] = await betterAuthWith(
        { postgres: source },
        [
          { email: 'carl@example.com', password: 'carl-better-pw', name: 'Carl' },
          { email: 'dina@example.com', password: 'dina-better-pw', name: 'Dina Dee' },
        ],
        true,
      );
      const client = new Client({ connectionString: source });
      await client.connect();
      try {
        // A social login and a verified address, as better-auth writes them when they happen.
        await client.query(
          `INSERT INTO "account" ("id", "accountId", "providerId", "userId", "createdAt", "updatedAt") VALUES ('acc_gh', '583231', 'github', $1, now(), now()), ('acc_li', 'li-1', 'linkedin', $1, now(), now())`,
          [dinaId],
        );
        await client.query(`UPDATE "user" SET "emailVerified" = true`);
      } finally {
        await client.end();
      }
      const database = `${(await postgres()).url}?schema=ba_target_${Date.now().toString(36)}`;
      const { code, rows } = await imported('better-auth', source, database);
      expect(code).toBe(0);
      expect(rows.map((r) => [r.sourceId, r.outcome])).toEqual(
        expect.arrayContaining([
          [carlId, 'created'],
          [dinaId, 'created'],
        ]),
      );
      expect(rows.find((r) => r.sourceId === dinaId)?.reason).toMatch(
        /logins of linkedin not linked: authgate has no provider of that name; 1 organization membership\(s\) not imported: name the account bridge's provider with --bridge/,
      );
      // With the account bridge's provider named, a second run adds the memberships: the creator owns the organization, the other is its admin.
      const second = await imported('better-auth', source, database, '--bridge', 'accounts');
      expect(second.rows.map((r) => [r.sourceId, r.outcome, r.reason])).toEqual(
        expect.arrayContaining([
          [carlId, 'merged', 'added the membership of Acme Widgets, the ownership of Acme Widgets'],
          [dinaId, 'merged', expect.stringContaining('added the membership of Acme Widgets')],
        ]),
      );
      expect((await imported('better-auth', source, database, '--bridge', 'accounts')).out).toMatch(/^created 0, merged 0, unchanged 2/);
      const orgs = createOrgStore(database);
      try {
        const org = await orgs.bySlug('acme-widgets');
        const member = (id: string) => hashId('accounts', importedAccountId('better-auth', id));
        expect([org?.name, org?.owners]).toEqual(['Acme Widgets', [member(carlId as string)]]);
        expect((await orgs.member(org!.id, member(dinaId as string)))?.roles).toEqual(['admin']);
      } finally {
        await orgs.close();
      }
      const { app, accounts } = makeAccountApp(peer, { store: database });
      try {
        expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'carl@example.com', password: 'carl-better-pw' })).status).toBe(200);
        expect(await accounts.store.accountOfLogin(hashId('github', 'gid:583231'))).toBe(importedAccountId('better-auth', dinaId as string));
      } finally {
        await accounts.close();
      }
    });

    it("Supabase: auth.users and auth.identities as Supabase's auth schema has them: bcrypt passwords sign in, identities are linked, banned and deleted users stay out", async () => {
      const source = await freshDatabase(`sb_${Date.now().toString(36)}`);
      const client = new Client({ connectionString: source });
      await client.connect();
      const ids = [
        '6a1f0c2e-0d7b-4b44-9e52-1c2d3e4f5a01',
        '6a1f0c2e-0d7b-4b44-9e52-1c2d3e4f5a02',
        '6a1f0c2e-0d7b-4b44-9e52-1c2d3e4f5a03',
        '6a1f0c2e-0d7b-4b44-9e52-1c2d3e4f5a04',
        '6a1f0c2e-0d7b-4b44-9e52-1c2d3e4f5a05',
      ];
      try {
        await client.query(`
          CREATE SCHEMA auth;
          CREATE TABLE auth.users (
            instance_id uuid, id uuid NOT NULL PRIMARY KEY, aud varchar(255), role varchar(255), email varchar(255),
            encrypted_password varchar(255), email_confirmed_at timestamptz, invited_at timestamptz,
            confirmation_token varchar(255), recovery_token varchar(255), last_sign_in_at timestamptz,
            raw_app_meta_data jsonb, raw_user_meta_data jsonb, is_super_admin bool, created_at timestamptz,
            updated_at timestamptz, phone text UNIQUE, phone_confirmed_at timestamptz, banned_until timestamptz,
            deleted_at timestamptz, is_sso_user boolean NOT NULL DEFAULT false, is_anonymous boolean NOT NULL DEFAULT false);
          CREATE TABLE auth.identities (
            provider_id text NOT NULL, user_id uuid NOT NULL REFERENCES auth.users(id) ON DELETE CASCADE,
            identity_data jsonb NOT NULL, provider text NOT NULL, last_sign_in_at timestamptz, created_at timestamptz,
            updated_at timestamptz, email text GENERATED ALWAYS AS (lower(identity_data->>'email')) STORED,
            id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, UNIQUE (provider_id, provider));`);
        const user = (id: string, email: string | null, password: string | null, confirmed: boolean, meta: object, extra = '') =>
          client.query(
            `INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, raw_user_meta_data, created_at${extra ? ', ' + extra : ''}) VALUES ($1, 'authenticated', 'authenticated', $2, $3, ${confirmed ? 'now()' : 'NULL'}, $4, now()${extra ? ", now() + interval '1 day'" : ''})`,
            [id, email, password, JSON.stringify(meta)],
          );
        await user(ids[0]!, 'eve@example.com', await bcrypt.hash('eve-supa-pw', 10), true, { full_name: 'Eve Supa' });
        await user(ids[1]!, 'finn@example.com', '', true, { name: 'Finn' });
        await user(ids[2]!, null, null, false, {});
        await user(ids[3]!, 'gone@example.com', null, true, {}, 'deleted_at');
        await user(ids[4]!, 'banned@example.com', null, true, {}, 'banned_until');
        await client.query(
          `INSERT INTO auth.identities (provider_id, user_id, identity_data, provider) VALUES ($1::text, $1::uuid, $2, 'email'), ('110169484474386276334', $3::uuid, $4, 'google'), ('583231', $3::uuid, $5, 'github')`,
          [
            ids[0],
            JSON.stringify({ sub: ids[0], email: 'eve@example.com' }),
            ids[1],
            JSON.stringify({ sub: '110169484474386276334', email: 'finn@gmail.com' }),
            JSON.stringify({ sub: '583231', user_name: 'finn' }),
          ],
        );
      } finally {
        await client.end();
      }
      const database = `${(await postgres()).url}?schema=sb_target_${Date.now().toString(36)}`;
      const { code, rows } = await imported('supabase', source, database);
      expect(code).toBe(3);
      expect(rows.map((r) => [r.sourceId, r.outcome, r.reason])).toEqual([
        [ids[0], 'created', undefined],
        [ids[1], 'created', undefined],
        [ids[2], 'skipped', 'no e-mail (a phone-only or anonymous user)'],
        [ids[3], 'skipped', 'deleted in Supabase: not imported'],
        [ids[4], 'skipped', 'banned in Supabase: not imported'],
      ]);
      const { app, accounts } = makeAccountApp(peer, { store: database });
      try {
        const token = (password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email: 'eve@example.com', password });
        expect((await token('eve-supa-pw')).status).toBe(200);
        expect((await token('not-eve')).status).toBe(401);
        const finn = await accounts.store.getByEmail('finn@example.com');
        expect(finn?.Pwd).toBe('');
        expect(await accounts.store.accountOfLogin(hashId('google', '110169484474386276334'))).toBe(finn?.Id);
        expect(await accounts.store.accountOfLogin(hashId('github', 'gid:583231'))).toBe(finn?.Id);
        expect((await accounts.store.getByEmail('eve@example.com'))?.Profile.LastName).toBe('Supa');
      } finally {
        await accounts.close();
      }
    });
  });
});
