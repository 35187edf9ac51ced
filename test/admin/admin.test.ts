import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';
import { adminApp, Session } from './admin-helpers';

const ROUTES: Array<[string, string]> = [
  ['GET', '/auth/admin/users'],
  ['GET', '/auth/admin/users/x'],
  ['POST', '/auth/admin/users/x/ban'],
  ['POST', '/auth/admin/users/x/unban'],
  ['POST', '/auth/admin/users/x/sessions/revoke-all'],
  ['POST', '/auth/admin/users/x/impersonate'],
];

function adminSuite(name: string, describeFn: jest.Describe, userStore: () => Promise<{ uri: string; cleanup(): Promise<void> }>): void {
  describeFn(`admin over HTTP (${name} user store)`, () => {
    let t: ReturnType<typeof adminApp>;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      const store = await userStore();
      cleanup = store.cleanup;
      t = adminApp({ userStore: store.uri, twoFactor: { key: 'admin-test-two-factor-key-0123456789' } });
    });
    afterEach(async () => {
      await t.auth.close();
      await cleanup();
    });

    it('non-admins get 403 on every admin route and on the console; nobody logged in gets 401', async () => {
      const bob = new Session(t);
      await bob.login('bob');
      for (const [method, path] of ROUTES) {
        const res = method === 'GET' ? await bob.get(path) : await bob.post(path, { reason: 'x' });
        expect([path, res.status, res.body.code]).toEqual([path, 403, 'forbidden']);
        expect((await request(t.app)[method === 'GET' ? 'get' : 'post'](path)).status).toBe(401);
      }
      const page = await bob.jar.on(request(t.app).get('/auth/admin/'));
      expect(page.status).toBe(403);
      expect(page.text).toContain('data-state="forbidden"');
      expect((await request(t.app).get('/auth/admin/')).status).toBe(401);
    });

    it('lists and searches users with their session counts, and shows one in full', async () => {
      const root = new Session(t);
      await root.login('root');
      const [ann, anna] = [new Session(t), new Session(t)];
      await ann.login('ann');
      await anna.login('anna');
      await anna.login('anna');
      const all = await root.get('/auth/admin/users?limit=2');
      expect(all.status).toBe(200);
      expect(all.body.users).toHaveLength(2);
      expect(typeof all.body.next).toBe('string');
      const found = await root.get('/auth/admin/users?query=ANN');
      expect(found.body.users.map((u: { name: string; sessions: number }) => [u.name, u.sessions])).toEqual([
        ['ann', 1],
        ['anna', 2],
      ]);
      const one = await root.get(`/auth/admin/users/${anna.id}`);
      expect(one.body).toMatchObject({ id: anna.id, name: 'anna', status: 'active', logins: [{ provider: 'local', id: anna.id }], credentials: [] });
      expect(one.body.sessions).toHaveLength(2);
      expect((await root.get('/auth/admin/users/nobody')).status).toBe(404);
      expect((await root.get('/auth/admin/users?limit=500')).status).toBe(400);
      expect((await root.get('/auth/admin/users?cursor=%%%')).status).toBe(400);
    });

    it('a ban ends every session at once and refuses every login and refresh with banned; until ends it; unban lifts it', async () => {
      const root = new Session(t);
      await root.login('root');
      const bob = new Session(t);
      await bob.login('bob');
      const bobElsewhere = new Session(t);
      await bobElsewhere.login('bob');
      expect((await bob.get('/private')).status).toBe(200);

      expect((await root.post(`/auth/admin/users/${bob.id}/ban`, {})).status).toBe(400);
      expect((await root.post(`/auth/admin/users/${bob.id}/ban`, { reason: 'spam', until: Date.now() - 1000 })).status).toBe(400);
      for (const body of [{ reason: 'x'.repeat(501) }, { reason: 7 }, { reason: 'ok', until: 'someday' }, [1]])
        expect((await root.post(`/auth/admin/users/${bob.id}/ban`, body)).body.code).toBe('bad_request');
      // Refused input changes nothing: still active, its sessions still there.
      expect((await root.get(`/auth/admin/users/${bob.id}`)).body).toMatchObject({ status: 'active', sessions: [expect.anything(), expect.anything()] });
      const banned = await root.post(`/auth/admin/users/${bob.id}/ban`, { reason: 'spam' });
      expect(banned.status).toBe(200);
      expect(banned.body).toMatchObject({ status: 'banned', revoked: 2, user: { status: 'banned', banReason: 'spam' } });
      expect(await t.auth.sessions.list(bob.id)).toEqual([]);

      const again = await new Session(t).login('bob', 403);
      expect(again.body).toMatchObject({ code: 'banned' });
      expect(again.headers['set-cookie']).toBeUndefined();
      // The old cookie, once expired: the refresh is refused as banned, and the cookies cleared.
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 16 * 60_000);
      try {
        const refused = await bob.get('/private');
        expect([refused.status, refused.body.code]).toEqual([401, 'banned']);
      } finally {
        jest.restoreAllMocks();
      }

      expect((await root.post(`/auth/admin/users/${bob.id}/unban`)).body).toMatchObject({ status: 'active', user: { status: 'active' } });
      expect((await root.get(`/auth/admin/users/${bob.id}`)).body.banReason).toBeUndefined();
      await new Session(t).login('bob');

      await root.post(`/auth/admin/users/${bob.id}/ban`, { reason: 'a day off', until: Date.now() + 60_000 });
      await new Session(t).login('bob', 403);
      jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
      try {
        await new Session(t).login('bob');
      } finally {
        jest.restoreAllMocks();
      }
    });

    it('never bans or acts as another admin or oneself; writes need a fresh login', async () => {
      const root = new Session(t);
      await root.login('root');
      const root2 = new Session(t);
      await root2.login('root2');
      expect((await root.post(`/auth/admin/users/${root2.id}/ban`, { reason: 'x' })).status).toBe(403);
      expect((await root.post(`/auth/admin/users/${root.id}/ban`, { reason: 'x' })).status).toBe(403);
      expect((await root.post(`/auth/admin/users/${root2.id}/impersonate`)).status).toBe(403);
      const bob = new Session(t);
      await bob.login('bob');
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60_000);
      try {
        expect((await root.post(`/auth/admin/users/${bob.id}/ban`, { reason: 'x' })).body).toMatchObject({ code: 'step_up_required' });
      } finally {
        jest.restoreAllMocks();
      }
      expect((await root.post(`/auth/admin/users/${bob.id}/sessions/revoke-all`)).body).toEqual({ revoked: 1 });
      expect((await bob.get('/private')).status).toBe(200); // 'refresh' mode: the token lives until its refresh
    });

    it('impersonation: a session as the user, marked with act, refused for step-up and admin routes, ended by stop', async () => {
      const root = new Session(t);
      await root.login('root');
      const bob = new Session(t);
      await bob.login('bob');
      const started = await root.post(`/auth/admin/users/${bob.id}/impersonate`);
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ status: 'impersonating', user: { id: bob.id, name: 'bob' }, admin: { id: root.id, name: 'root' } });
      expect((await root.get('/auth/user')).body).toMatchObject({ id: bob.id, name: 'bob' });
      expect((await root.get('/auth/admin/impersonation')).body).toMatchObject({ active: true, admin: { id: root.id, name: 'root' } });
      expect((await root.get('/auth/admin/users')).status).toBe(403);
      // Listed as what it is, not as a login through the user's last provider (issue 41, item 9).
      const listed = (await root.get('/auth/sessions')).body as Array<{ impersonatedBy?: unknown; current?: boolean }>;
      expect(listed.find((s) => s.current)).toMatchObject({ impersonatedBy: { id: root.id, name: 'root' } });
      expect(listed.filter((s) => !s.current).every((s) => s.impersonatedBy === undefined)).toBe(true);
      expect((await root.post('/auth/sessions/revoke-others')).status).toBe(200);
      // Credential changes need a fresh login of the user itself: never through an impersonation.
      expect((await root.post('/auth/2fa/enroll')).body).toMatchObject({ code: 'step_up_required' });
      const sessions = await t.auth.sessions.list(bob.id);
      expect(sessions.length).toBe(1);

      const stopped = await root.post('/auth/admin/impersonation/stop');
      expect(stopped.body).toMatchObject({ status: 'stopped', user: { id: root.id } });
      expect((await root.get('/auth/user')).body).toMatchObject({ id: root.id });
      expect((await root.get('/auth/admin/impersonation')).body).toEqual({ active: false });
      expect((await root.get('/auth/admin/users')).status).toBe(200);
      expect(await t.auth.sessions.list(bob.id)).toHaveLength(0);
      expect((await root.post('/auth/admin/impersonation/stop')).status).toBe(409);
      expect((await root.post('/auth/2fa/enroll')).status).toBe(200);
    });

    it('an impersonation ends by itself after impersonationMaxAge (1 hour): no refresh past it', async () => {
      const root = new Session(t);
      await root.login('root');
      const bob = new Session(t);
      await bob.login('bob');
      const started = await root.post(`/auth/admin/users/${bob.id}/impersonate`);
      expect(started.body.expires).toBeLessThanOrEqual(Date.now() + 3_600_000);
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 3_601_000);
      try {
        const ended = await root.get('/private');
        expect([ended.status, ended.body.code]).toEqual([401, 'session_expired']);
      } finally {
        jest.restoreAllMocks();
      }
    });
  });
}

adminSuite('memory', describe, async () => ({ uri: 'memory://', cleanup: async () => undefined }));
adminSuite('level', describe, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-admin-'));
  return { uri: `level://${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
const postgres = sharedServer(startPostgres);
adminSuite('postgres', describePostgres, async () => {
  const server = await postgres();
  const schema = `ad_${randomBytes(6).toString('hex')}`;
  return { uri: `${server.url}?schema=${schema}`, cleanup: () => dropSchema(server.url, schema) };
});
