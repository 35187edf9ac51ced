import request from 'supertest';
import { EmailSender, type AuthEvent } from '../../src';
import { accounts } from '../../src/accounts';
import { activeUserOn } from '../admin/account-steps';
import { startSmtpPeer } from '../support/smtp-peer';
import { adminApp, Session } from '../admin/admin-helpers';

describe('security events over HTTP', () => {
  let t: ReturnType<typeof adminApp>;
  let seen: AuthEvent[];
  beforeEach(() => {
    t = adminApp({ twoFactor: { key: 'events-test-two-factor-key-0123456789' }, rateLimits: { loginPerUser: { limit: 3, windowMs: 60_000 } } });
    seen = [];
    t.auth.events.on('*', (e) => void seen.push(e));
  });
  afterEach(() => t.auth.close());
  const types = (): string[] => seen.map((e) => e.type);

  it('records logins, failures (identity, never the password), logout, revocations, credentials, refresh refusals and rate limits', async () => {
    const alice = new Session(t);
    await alice.login('Alice');
    await request(t.app).post('/auth/local/login').set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0').send({ user: 'Alice', passwd: 'wrong-secret-pw' }).expect(403);
    await t.auth.events.flush();
    const [ok, failed] = seen;
    expect(ok).toMatchObject({ type: 'login.succeeded', userId: alice.id, actor: { kind: 'user', id: alice.id }, data: { provider: 'local' } });
    expect(ok!.session).toMatch(/^[A-Za-z0-9_-]{10,}$/);
    expect(ok!.ip).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(failed).toMatchObject({ type: 'login.failed', userId: alice.id, data: { provider: 'local', identity: 'alice', reason: 'credentials_rejected' }, userAgent: 'Firefox on Linux' });
    expect(JSON.stringify(seen)).not.toContain('wrong-secret-pw');
    expect(JSON.stringify(seen)).not.toContain('127.0.0.1');

    expect((await alice.post('/auth/2fa/enroll')).status).toBe(200);
    const other = new Session(t);
    await other.login('Alice');
    expect((await alice.post('/auth/sessions/revoke-others')).body).toEqual({ revoked: 1 });
    for (let i = 0; i < 7; i++) await request(t.app).post('/auth/local/login').send({ user: 'mallory', passwd: 'x' });
    await alice.get('/auth/logout');
    await t.auth.events.flush();
    expect(types()).toEqual(expect.arrayContaining(['login.succeeded', 'login.failed', 'session.revoked', 'logout', 'rate_limited']));
    expect(seen.find((e) => e.type === 'session.revoked')).toMatchObject({ userId: alice.id, data: { which: 'others', count: 1 } });
    expect(seen.find((e) => e.type === 'rate_limited')).toMatchObject({ actor: { kind: 'system' }, data: { limit: 'loginPerUser' } });
    expect(JSON.stringify(seen.find((e) => e.type === 'rate_limited'))).not.toContain('mallory');
    // Told once while the limit lasts, however many 429s follow.
    expect(seen.filter((e) => e.type === 'rate_limited')).toHaveLength(1);

    // A copy of the revoked session's cookie, expired: its refresh is refused, and that is an event.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 16 * 60_000);
    try {
      expect((await other.get('/private')).body).toMatchObject({ code: 'session_revoked' });
    } finally {
      jest.restoreAllMocks();
    }
    await t.auth.events.flush();
    expect(seen.find((e) => e.type === 'session.refresh_refused')).toMatchObject({ userId: alice.id, actor: { kind: 'system' }, data: { reason: 'session_revoked' } });
  });

  it('a failing or slow handler never changes, breaks or delays an answer', async () => {
    let handled = false;
    t.auth.events.on('login.succeeded', () => {
      throw new Error('handler bug');
    });
    t.auth.events.on('login.succeeded', async () => {
      await new Promise((r) => setTimeout(r, 300));
      handled = true;
    });
    const res = await request(t.app).post('/auth/local/login').send({ user: 'bob', passwd: 'pw' });
    expect(res.status).toBe(200);
    expect(handled).toBe(false);
    await t.auth.events.flush();
    expect(handled).toBe(true);
  });

  it("GET /events: the caller's own activity, paged; GET /admin/audit: everyone's, for admins only; admin actions show in both", async () => {
    const root = new Session(t);
    await root.login('root');
    const bob = new Session(t);
    for (let i = 0; i < 3; i++) await bob.login('bob');
    await t.auth.events.flush();
    const first = await bob.get('/auth/events?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: AuthEvent) => [e.type, e.userId])).toEqual([
      ['login.succeeded', bob.id],
      ['login.succeeded', bob.id],
    ]);
    const second = await bob.get(`/auth/events?limit=2&cursor=${first.body.next as string}`);
    expect(second.body.events).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
    for (const bad of ['limit=0', 'limit=500', 'cursor=nope', 'type=login.nope', 'from=abc']) expect((await bob.get(`/auth/events?${bad}`)).status).toBe(400);
    expect((await request(t.app).get('/auth/events')).status).toBe(401);

    expect((await root.post(`/auth/admin/users/${bob.id}/ban`, { reason: 'spam' })).status).toBe(200);
    expect((await root.post(`/auth/admin/users/${bob.id}/unban`)).status).toBe(200);
    await t.auth.events.flush();
    const detail = await root.get(`/auth/admin/users/${bob.id}`);
    expect(detail.body.events.slice(0, 2).map((e: AuthEvent) => [e.type, e.actor])).toEqual([
      ['user.unbanned', { kind: 'admin', id: root.id }],
      ['user.banned', { kind: 'admin', id: root.id }],
    ]);
    await bob.login('bob');
    await t.auth.events.flush();
    expect((await bob.get('/auth/events?type=user.banned,user.unbanned')).body.events.map((e: AuthEvent) => e.type)).toEqual(['user.unbanned', 'user.banned']);
    const audit = await root.get(`/auth/admin/audit?user=${bob.id}&type=user.banned`);
    expect(audit.body.events).toEqual([expect.objectContaining({ type: 'user.banned', data: expect.objectContaining({ reason: 'spam' }) })]);
    expect((await root.get('/auth/admin/audit?limit=100')).body.events.length).toBeGreaterThan(5);
    expect((await bob.get('/auth/admin/audit')).status).toBe(403);
  });
});

describe('account events (the accounts plugin)', () => {
  it('records sign-up, activation, password change and deletion, as the owner', async () => {
    const smtp = await startSmtpPeer();
    const service = accounts({
      store: 'memory://',
      sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'a@app.example', timeout: 5000 }),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
    });
    const t = adminApp({ plugins: [service] });
    t.app.use('/account', service.router);
    try {
      const { token, userId } = await activeUserOn(t.app, smtp, 'eve@example.com');
      const accountId = (await service.service.store.getByEmail('eve@example.com'))!.Id;
      const bearer = ['Authorization', `Bearer ${token}`] as const;
      await request(t.app)
        .post(`/account/profile/${accountId}/change-password`)
        .set(...bearer)
        .send({ Pwd: 'correct horse', NewPwd: 'battery staple 42', NewPwdRepeat: 'battery staple 42' })
        .expect(200);
      const again = await request(t.app).post('/account/tokens').send({ grant_type: 'password', email: 'eve@example.com', password: 'battery staple 42' }).expect(200);
      await request(t.app)
        .delete(`/account/profile/${accountId}`)
        .set('Authorization', `Bearer ${again.body.AccessToken as string}`)
        .send({ Pwd: 'battery staple 42' })
        .expect(200);
      await t.auth.events.flush();
      const page = await t.auth.events.list({ userId, limit: 50 });
      expect(page.events.map((e) => e.type).reverse()).toEqual(['account.created', 'account.activated', 'login.succeeded', 'password.changed', 'account.deleted']);
      expect(page.events.every((e) => e.actor.kind === 'user' && e.actor.id === userId)).toBe(true);
    } finally {
      await t.auth.close();
      await smtp.close();
    }
  });
});
