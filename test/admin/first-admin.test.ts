import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { cli } from '../support/cli';
import { admin } from '../../src/admin';
import type { AuthOptions, Claims } from '../../src';
import { login, makeApp, type TestApp } from '../support/auth-app';
import { spawnReady } from '../support/ready-process';

/** Runs `npx authgate ...` in this process: its exit code and what it wrote. */

/** The test app with the admin plugin; logins carry `<name>@example.com` as their e-mail (a claims updater, as a provider would give it). */
function appWith(options: Partial<AuthOptions>): TestApp {
  return makeApp({
    plugins: [admin()],
    claimsUpdater: (claims: Claims) => ({ ...claims, user: claims.user && { ...claims.user, email: `${claims.user.name}@example.com` } }),
    ...options,
  });
}

/** What an admin may do, asked of both guards: the app's `m.admin` route and the admin plugin's list. */
async function adminRights(t: TestApp, user: string): Promise<{ mAdmin: number; plugin: number; attrs: unknown }> {
  const { cookie, xsrf, body } = await login(t.app, user);
  const mAdmin = (await request(t.app).get('/admin').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf)).status;
  const plugin = (await request(t.app).get('/auth/admin/users').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf)).status;
  return { mAdmin, plugin, attrs: body.attrs };
}

describe('the first admin (issue 49)', () => {
  it('createAuth({ admins }) makes those ids admins for m.admin and the admin plugin alike; others stay users', async () => {
    const probe = appWith({});
    const id = (await login(probe.app, 'ops')).body.id as string;
    await probe.auth.close();
    const t = appWith({ admins: [id] });
    try {
      expect(await adminRights(t, 'ops')).toEqual({ mAdmin: 200, plugin: 200, attrs: { admin: true } });
      expect(await adminRights(t, 'mallory')).toMatchObject({ mAdmin: 403, plugin: 403 });
    } finally {
      await t.auth.close();
    }
  });

  it('refuses e-mail addresses in admins (anyone may claim one at some providers), naming the command that grants by e-mail', () => {
    expect(() => makeApp({ admins: ['ops@example.com'] })).toThrow(/takes user ids, not e-mail addresses \(ops@example\.com\).*npx authgate admin ops@example\.com/);
    expect(() => makeApp({ admins: [''] })).toThrow(/options\.admins must be a list of user ids/);
  });

  it('npx authgate admin on a level folder the running app holds says to stop the app first', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-admin-held-'));
    const holder = await spawnReady(
      ['-e', `const { Level } = require('level'); new Level(${JSON.stringify(join(dir, 'users'))}).open().then(() => console.log('READY held')); setInterval(() => undefined, 1000);`],
      {
        env: { ...process.env, NODE_PATH: join(__dirname, '../../node_modules') },
      },
    );
    try {
      const held = await cli('admin', 'ops@example.com', '--database', `level://${dir}`);
      expect(held).toMatchObject({ code: 1, out: expect.stringMatching(/LEVEL_LOCKED.*: the app \(or another process\) holds this level folder; stop it, run the command, then start the app again/) });
    } finally {
      await holder.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a deleted user loses the grant with its record: the same id signing up again is no admin', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-admin-deleted-'));
    const database = `sqlite://${join(dir, 'app.db')}`;
    const t = appWith({ database });
    try {
      const id = (await login(t.app, 'ops')).body.id as string;
      await t.auth.users.setAdminGrant(id, true);
      expect(await adminRights(t, 'ops')).toMatchObject({ mAdmin: 200, plugin: 200 });
      expect(await t.auth.users.delete(id)).toBe(true);
      expect(await adminRights(t, 'ops')).toMatchObject({ mAdmin: 403, plugin: 403 });
      expect((await t.auth.users.get(id))?.adminGrant).toBeUndefined();
    } finally {
      await t.auth.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('npx authgate admin <e-mail> grants by e-mail on the app database, and --revoke takes it back and ends the sessions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-admin-'));
    const database = `sqlite://${join(dir, 'app.db')}`;
    try {
      const before = appWith({ database });
      const ops = await login(before.app, 'ops');
      await login(before.app, 'mallory');
      await before.auth.close();

      expect(await cli('admin', '--database', database)).toMatchObject({ code: 2, out: expect.stringMatching(/name the user/) });
      expect(await cli('admin', 'nobody@example.com', '--database', database)).toMatchObject({
        code: 1,
        out: expect.stringMatching(/no user with the id or e-mail "nobody@example\.com": the user must have logged in once/),
      });
      const granted = await cli('admin', 'OPS@example.com', '--database', database);
      expect(granted).toMatchObject({ code: 0, out: expect.stringMatching(new RegExp(`^${ops.body.id as string} \\("ops", ops@example\\.com; logins: local\\) is an admin from its next login`)) });

      // Sessions checked on every request: the revocation reaches this instance at once (with the default, 'refresh', at the token's next refresh).
      const after = appWith({ database, revocationCheck: 'every-request' });
      try {
        expect(await adminRights(after, 'ops')).toEqual({ mAdmin: 200, plugin: 200, attrs: { admin: true } });
        expect(await adminRights(after, 'mallory')).toMatchObject({ mAdmin: 403, plugin: 403 });
        // In the audit log, as every change of rights is.
        expect((await after.auth.events.list({ userId: ops.body.id as string, types: ['user.admin_granted'] })).events).toEqual([
          expect.objectContaining({ type: 'user.admin_granted', actor: { kind: 'system' }, data: { by: 'npx authgate admin' } }),
        ]);
        // The grant is kept across logins (unlike the record's last-login flag).
        expect((await after.auth.users.get(ops.body.id as string))?.adminGrant).toBe(true);
        const live = await login(after.app, 'ops');
        expect((await request(after.app).get('/admin').set('Cookie', live.cookie).set('X-XSRF-TOKEN', live.xsrf)).status).toBe(200);

        const revoked = await cli('admin', ops.body.id as string, '--revoke', '--database', database);
        expect(revoked).toMatchObject({ code: 0, out: expect.stringMatching(/is no longer an admin; [1-9]\d* sessions? ended/) });
        // The admin's live session ended at once, though another process ended it; a new login is no admin.
        expect((await request(after.app).get('/admin').set('Cookie', live.cookie).set('X-XSRF-TOKEN', live.xsrf)).status).toBe(401);
        expect(await adminRights(after, 'ops')).toMatchObject({ mAdmin: 403, plugin: 403 });
        expect((await after.auth.events.list({ userId: ops.body.id as string, types: ['user.admin_revoked'] })).events).toEqual([
          expect.objectContaining({ data: { by: 'npx authgate admin', revoked: expect.any(Number) } }),
        ]);
      } finally {
        await after.auth.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
