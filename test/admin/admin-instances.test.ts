import { randomBytes } from 'node:crypto';
import { eventually } from '../support/eventually';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';
import { adminApp, Session } from './admin-helpers';

const postgres = sharedServer(startPostgres);

describePostgres('admin on two instances sharing PostgreSQL (users and state)', () => {
  it.each(['every-request', 'refresh'] as const)("a ban on A refuses the user on B at once, its refresh too (revocationCheck '%s')", async (revocationCheck) => {
    const server = await postgres();
    const schema = `ai_${randomBytes(6).toString('hex')}`;
    const uri = `${server.url}?schema=${schema}`;
    const [a, b] = [adminApp({ userStore: uri, stateStore: uri, revocationCheck }), adminApp({ userStore: uri, stateStore: uri, revocationCheck })];
    try {
      const root = new Session(a);
      await root.login('root');
      const bobOnA = new Session(a);
      await bobOnA.login('bob');
      // The same browser on B.
      const bob = new Session(b);
      bob.jar.set('JWT', bobOnA.jar.get('JWT') ?? '');
      bob.jar.set('XSRF-TOKEN', bobOnA.jar.get('XSRF-TOKEN') ?? '');
      expect((await bob.get('/private')).status).toBe(200);
      expect((await bob.get('/private')).status).toBe(200);

      expect((await root.post(`/auth/admin/users/${bobOnA.id}/ban`, { reason: 'abuse' })).status).toBe(200);
      if (revocationCheck === 'every-request') {
        const refused = await eventually(
          async () => {
            const res = await bob.get('/private');
            expect(res.status).toBe(401);
            return res;
          },
          3000,
          10,
        );
        expect(refused.body.code).toBe('session_revoked');
      }
      // Its refresh on B, once the token expired: refused as banned (B reads the shared directory),
      // also for a copy of the cookie kept from before.
      bob.jar.set('JWT', bobOnA.jar.get('JWT') ?? '');
      bob.jar.set('XSRF-TOKEN', bobOnA.jar.get('XSRF-TOKEN') ?? '');
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 16 * 60_000);
      try {
        const res = await bob.get('/private');
        expect([res.status, res.body.code]).toEqual([401, 'banned']);
      } finally {
        jest.restoreAllMocks();
      }
      // A new login on B: refused.
      expect((await new Session(b).login('bob', 403)).body.code).toBe('banned');
      // Unbanned on B: the login works on A.
      const rootOnB = new Session(b);
      await rootOnB.login('root');
      expect((await rootOnB.post(`/auth/admin/users/${bobOnA.id}/unban`)).status).toBe(200);
      await new Session(a).login('bob');
    } finally {
      await Promise.all([a.auth.close(), b.auth.close()]);
      await dropSchema(server.url, schema);
    }
  });
});
