import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcrypt';
import request from 'supertest';
import { createAuditStore, createAvatarStore, createUserStore, type UserRecord } from '../../src';
import { cli } from '../support/cli';
import { familyUri } from '../../src/internal/database-uri';
import { createAccountStore } from '../../src/plugins/accounts/create-account-store';
import { importAccounts, importedAccountId } from '../../src/plugins/accounts/import/import-accounts';
import { createOrgStore } from '../../src/plugins/organizations/create-org-store';
import { makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { describeMysql, describePostgres, freshMysqlDatabase, sharedServer, startMysql, startPostgres } from '../support/servers';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';

// `npx authgate copy`: a deployment on SQLite (users, accounts with a password, the audit log, an
// organization, an avatar) moved to PostgreSQL and to a level folder, counted at the end, run again
// without harm; a person the target has already under another id is a conflict, not overwritten.

const user = (i: number): UserRecord => ({ id: `local_u${i}`, name: `User ${i}`, email: `u${i}@example.com`, logins: [], created: 1, lastLogin: 1, status: 'active' });

async function deployment(database: string): Promise<void> {
  const users = createUserStore(database);
  const audit = createAuditStore(database);
  const avatars = createAvatarStore(database);
  const orgs = createOrgStore(database);
  const accounts = createAccountStore(database);
  try {
    for (let i = 0; i < 1200; i++) await users.add(user(i));
    await audit.append({ id: 'evt_copy1', time: Date.now(), type: 'login.succeeded', userId: 'local_u1', actor: { kind: 'user', id: 'local_u1' }, data: {} });
    await avatars.put('local_u1', Buffer.from('\x89PNG\r\n\x1a\nnot really a picture'));
    await orgs.add({ id: 'org_copy', name: 'Copy Co', slug: 'copy-co', created: 1, owners: ['local_u1'], teams: [] });
    await orgs.addMember({ orgId: 'org_copy', userId: 'local_u1', roles: [], teams: [], joined: 1 });
    async function* people() {
      yield { line: 1, person: { sourceId: 'p1', email: 'pat@example.com', emailVerified: true, passwordHash: await bcrypt.hash('pat-pw', 4) } };
    }
    await importAccounts(accounts, 'test', people());
  } finally {
    await Promise.all([users.close(), audit.close(), avatars.close(), orgs.close(), accounts.close()]);
  }
}

describe('npx authgate copy: every family of a deployment to another database', () => {
  let dir: string;
  let peer: SmtpPeer;
  let from: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-copy-'));
    peer = await startSmtpPeer();
    from = `sqlite://${join(dir, 'app.db')}`;
    await deployment(from);
  });
  afterAll(async () => {
    await peer.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function checkTarget(to: string): Promise<void> {
    // Each store where createAuth({ database }) opens it.
    const at = (family: string): string => familyUri(to, family) as string;
    const users = createUserStore(at('users'));
    const orgs = createOrgStore(at('organizations'));
    const avatars = createAvatarStore(at('avatars'));
    try {
      expect((await users.get('local_u1199'))?.email).toBe('u1199@example.com');
      expect((await orgs.bySlug('copy-co'))?.owners).toEqual(['local_u1']);
      expect((await orgs.member('org_copy', 'local_u1'))?.orgId).toBe('org_copy');
      expect((await avatars.list()).length).toBe(1);
    } finally {
      await Promise.all([users.close(), orgs.close(), avatars.close()]);
    }
    const { app, accounts } = makeAccountApp(peer, { store: at('accounts') });
    try {
      expect((await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'pat@example.com', password: 'pat-pw' })).status).toBe(200);
    } finally {
      await accounts.close();
    }
  }

  it('SQLite to a level folder: every family copied and counted; a second run finds everything there', async () => {
    const to = `level://${join(dir, 'level')}`;
    const first = await cli('copy', '--from', from, '--to', to);
    expect(first.code).toBe(0);
    expect(first.out).toContain('users: copied 1200, already there 0, in conflict 0; 1200 in the source, 1200 in the target');
    expect(first.out).toMatch(/accounts: copied 1, already there 0, in conflict 0; 1 in the source, 1 in the target/);
    expect(first.out).toMatch(/audit: copied 1,/);
    expect(first.out).toMatch(/avatars: copied 1, failed 0/);
    expect(first.out.split('\n').at(-1)).toMatch(/; the state store is not copied: people sign in again$/);
    const second = await cli('copy', '--from', from, '--to', to);
    expect([second.code, second.out]).toEqual([0, expect.stringContaining('users: copied 0, already there 1200, in conflict 0')]);
    await checkTarget(to);
  });

  it('refuses what is no copy: the same database twice, memory://, a missing --to (exit 2)', async () => {
    expect((await cli('copy', '--from', from, '--to', from)).out).toMatch(/name the same database/);
    expect((await cli('copy', '--from', from, '--to', 'memory://')).out).toMatch(/memory:\/\/ keeps nothing/);
    expect(await cli('copy', '--from', from)).toEqual({ code: 2, out: expect.stringMatching(/^name both databases/) });
    expect(await cli('copy', '--help')).toEqual({ code: 0, out: expect.stringMatching(/^usage: npx authgate copy/) });
  });

  const postgres = sharedServer(startPostgres);
  describePostgres('to PostgreSQL', () => {
    it('SQLite to PostgreSQL: the people sign in there; an address the target holds under another id is a conflict, never overwritten (exit 3)', async () => {
      const to = `${(await postgres()).url}?schema=copy_${Date.now().toString(36)}`;
      // The target has someone of that address already, under another id.
      const existing = createAccountStore(to);
      async function* other() {
        yield { line: 1, person: { sourceId: 'elsewhere', email: 'pat@example.com', emailVerified: true } };
      }
      await importAccounts(existing, 'other', other());
      await existing.close();
      const reportFile = join(dir, 'copy-report.json');
      const first = await cli('copy', '--from', from, '--to', to, '--report', reportFile);
      expect(first.code).toBe(3);
      const report = JSON.parse(await readFile(reportFile, 'utf8')) as { families: Array<{ family: string; copied: number }>; conflicts: Array<{ family: string; id: string; index: string }> };
      expect(report.conflicts).toEqual([{ family: 'accounts', id: importedAccountId('test', 'p1'), index: 'email' }]);
      expect(report.families.find((f) => f.family === 'users')?.copied).toBe(1200);
      expect(first.out).toMatch(/accounts: copied 0, already there 0, in conflict 1; 1 in the source, 1 in the target \(they differ\)/);
      expect(first.out).toContain('users: copied 1200, already there 0, in conflict 0');
      const kept = createAccountStore(to);
      try {
        expect((await kept.getByEmail('pat@example.com'))?.Pwd).toBe('');
        await kept.delete((await kept.getByEmail('pat@example.com'))!.Id);
      } finally {
        await kept.close();
      }
      // The conflict cleared by hand, a second run copies what was left.
      const second = await cli('copy', '--from', from, '--to', to);
      expect(second.code).toBe(0);
      expect(second.out).toMatch(/accounts: copied 1, already there 0, in conflict 0/);
      await checkTarget(to);
    });
  });

  const mariadb = sharedServer(startMysql);
  describeMysql('to MariaDB', () => {
    it('SQLite to MariaDB: every family, the state store too (a family on both), and the people sign in there', async () => {
      const fresh = await freshMysqlDatabase((await mariadb()).url);
      try {
        const copied = await cli('copy', '--from', from, '--to', fresh.uri);
        expect(copied.code).toBe(0);
        expect(copied.out).toContain('users: copied 1200, already there 0, in conflict 0');
        expect(copied.out).toMatch(/\nstate: copied \d+/);
        expect(copied.out.split('\n').at(-1)).not.toMatch(/state store is not copied/);
        await checkTarget(fresh.uri);
      } finally {
        await fresh.drop();
      }
    });
  });

  describeMongo('to MongoDB', () => {
    it('SQLite to MongoDB (the stand-in, or MONGO_URL): every family, and the people sign in there', async () => {
      const { uri, db } = await freshMongoUri();
      try {
        const copied = await cli('copy', '--from', from, '--to', uri);
        expect(copied.code).toBe(0);
        expect(copied.out).toContain('users: copied 1200, already there 0, in conflict 0');
        expect(copied.out).toMatch(/avatars: copied 1, failed 0/);
        await checkTarget(uri);
      } finally {
        await dropMongoDb(db);
      }
    });
  });
});
