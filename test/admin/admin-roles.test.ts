import request from 'supertest';
import { EmailSender, setRole, setStrAttr, type AuthOptions } from '../../src';
import { accounts } from '../../src/accounts';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { activeUserOn } from './account-steps';
import { adminApp, Session } from './admin-helpers';

/**
 * Whatever makes a user an admin at the middleware makes it one for the admin plugin's target
 * checks (issue 41, item 4): with `isAdmin` reading `role` or an attribute the claims updater sets,
 * one admin never bans nor impersonates another.
 */
describe('admins by role or attribute are admins to the admin plugin too', () => {
  const opsUpdater: AuthOptions['claimsUpdater'] = (claims) => {
    const name = claims.user?.name ?? '';
    if (claims.user && name.startsWith('ops')) setRole(claims.user, 'ops');
    if (claims.user && name.startsWith('sre')) setStrAttr(claims.user, 'team', 'sre');
    return claims;
  };

  it.each([
    ['role', 'ops1', 'ops2'],
    ['an attribute', 'sre1', 'sre2'],
  ])('isAdmin by %s: one admin cannot ban or impersonate another; both can act on others', async (_kind, first, second) => {
    const t = adminApp({ claimsUpdater: opsUpdater }, { isAdmin: (u) => u.role === 'ops' || u.attrs?.team === 'sre' });
    try {
      const a = new Session(t);
      await a.login(first);
      const b = new Session(t);
      await b.login(second);
      const bob = new Session(t);
      await bob.login('bob');
      expect((await a.get('/auth/admin/users')).status).toBe(200);
      for (const action of ['ban', 'impersonate'] as const) {
        const refused = await a.post(`/auth/admin/users/${b.id}/${action}`, { reason: 'coup' });
        expect([refused.status, refused.body.error]).toEqual([403, `an admin cannot ${action} another admin`]);
      }
      expect((await b.get('/private')).status).toBe(200);
      expect((await a.get(`/auth/admin/users/${b.id}`)).body).toMatchObject({ status: 'active' });
      expect((await a.post(`/auth/admin/users/${bob.id}/ban`, { reason: 'spam' })).status).toBe(200);
    } finally {
      await t.auth.close();
    }
  });

  describe('an account user made admin by its e-mail, as the admin guide shows', () => {
    let smtp: SmtpPeer;
    beforeAll(async () => {
      smtp = await startSmtpPeer();
    });
    afterAll(() => smtp.close());

    it('carries its verified e-mail in the token, so isAdmin: (u) => u.email === ... matches it', async () => {
      const service = accounts({
        store: 'memory://',
        sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'accounts@app.example', timeout: 5000 }),
        baseUrl: 'http://127.0.0.1:8080/account',
        bcryptRounds: 4,
      });
      const t = adminApp({ plugins: [service] }, { isAdmin: (u) => u.email === 'ops@example.com' || u.name === 'boss' });
      t.app.use('/account', service.router);
      try {
        await activeUserOn(t.app, smtp, 'ops@example.com');
        await activeUserOn(t.app, smtp, 'someone@example.com');
        const login = async (email: string): Promise<Session> => {
          const s = new Session(t);
          const res = s.jar.keep(await request(t.app).post('/auth/accounts/login').send({ user: email, passwd: 'correct horse' }));
          expect(res.body).toMatchObject({ name: email, email });
          s.id = res.body.id as string;
          return s;
        };
        const ops = await login('ops@example.com');
        expect((await ops.get('/auth/admin/users')).status).toBe(200);
        expect((await (await login('someone@example.com')).get('/auth/admin/users')).status).toBe(403);
        // And it is an admin to the target checks: another admin cannot ban it.
        const boss = new Session(t);
        await boss.login('boss');
        expect((await boss.post(`/auth/admin/users/${ops.id}/ban`, { reason: 'coup' })).status).toBe(403);
      } finally {
        await t.auth.close();
      }
    });
  });
});
