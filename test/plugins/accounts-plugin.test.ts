import express, { type Express } from 'express';
import request from 'supertest';
import { createAuth, EmailSender, hashId, senderFunc, twoFactor, type Auth } from '../../src';
import { apiKeyOf, apiKeys, orgKeyHolder } from '../../src/api-keys';
import { organizations } from '../../src/organizations';
import { admin } from '../../src/admin';
import { accounts, type AccountsPlugin } from '../../src/accounts';
import { SECRET } from '../support/auth-app';
import { activeUser, bearer, mailTo } from '../support/account-app';
import { setCookies } from '../support/cookies';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { totpCode } from '../support/totp-code';
import { setClock } from '../support/clock';
import { createStateStore } from '../../src/stores/create-state-store';
import { MemoryAccountStore } from '../../src/accounts';

let peer: SmtpPeer;
beforeAll(async () => {
  peer = await startSmtpPeer();
});
afterAll(() => peer.close());

function app(extra: { plugins?: Parameters<typeof createAuth>[0]['plugins']; stepUpMaxAge?: number } = {}): { app: Express; auth: Auth; plugin: AccountsPlugin } {
  const plugin = accounts({
    store: 'memory://',
    sender: new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'accounts@app.example', subject: 'Account', timeout: 5000 }),
    baseUrl: 'http://127.0.0.1:8080/account',
    bcryptRounds: 4,
    rateLimits: false,
  });
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, revocationCheck: 'every-request', stepUpMaxAge: extra.stepUpMaxAge, plugins: [plugin, ...(extra.plugins ?? [])] });
  const server = express();
  server.use('/account', plugin.router);
  server.use('/auth', auth.handlers().authRouter);
  server.get('/private', auth.middleware().auth, (_req, res) => void res.json({ ok: true }));
  return { app: server, auth, plugin };
}

const loginCookies = async (server: Express, email: string, pwd: string): Promise<(r: request.Test) => request.Test> => {
  const c = setCookies(await request(server).post('/auth/accounts/login').send({ user: email, passwd: pwd }).expect(200));
  return (r) => r.set('Cookie', `JWT=${c.JWT?.value}`).set('X-XSRF-TOKEN', c['XSRF-TOKEN']!.value);
};

describe('the accounts plugin', () => {
  it('brings the accounts provider and the account routes, with no glue: a deletion ends sessions and removes the second factor and the directory record', async () => {
    const { app: server, auth } = app({ plugins: [twoFactor({ key: 'k'.repeat(32) })] });
    expect(auth.providerNames()).toContain('accounts');
    expect(auth.plugin('accounts') && auth.plugin('two-factor')).toBe(true);
    const { id, token } = await activeUser(server, peer, 'plugged@example.com', 'plugged-password');
    const session = await loginCookies(server, 'plugged@example.com', 'plugged-password');
    await session(request(server).get('/private')).expect(200);
    const userId = hashId('accounts', id);
    expect(await auth.users.get(userId)).toMatchObject({ id: userId, name: 'plugged@example.com' });
    const enrolled = await session(request(server).post('/auth/2fa/enroll')).expect(200);
    await session(request(server).post('/auth/2fa/confirm'))
      .send({ code: totpCode(enrolled.body.secret as string, Date.now() / 1000) })
      .expect(200);
    expect(await auth.credentials.list(userId)).toHaveLength(1);
    // The account's access token now needs the second factor: the core's two-factor reached the account service.
    await request(server).post('/account/tokens').send({ grant_type: 'password', email: 'plugged@example.com', password: 'plugged-password' }).expect(401);

    await request(server)
      .delete(`/account/profile/${id}`)
      .set(...bearer(token))
      .send({ Pwd: 'plugged-password' })
      .expect(200);
    await session(request(server).get('/private')).expect(401);
    expect(await auth.credentials.list(userId)).toEqual([]);
    expect(await auth.users.get(userId)).toBeUndefined();
    await auth.close();
  });

  it('trades the session of a signed-in browser for an access token (grant_type=session): no password, no second code again', async () => {
    const { app: server, auth } = app({ plugins: [twoFactor({ key: 'k'.repeat(32) })] });
    const { id } = await activeUser(server, peer, 'session@example.com', 'session-password');
    const session = await loginCookies(server, 'session@example.com', 'session-password');
    const enrolled = await session(request(server).post('/auth/2fa/enroll')).expect(200);
    await session(request(server).post('/auth/2fa/confirm'))
      .send({ code: totpCode(enrolled.body.secret as string, Date.now() / 1000) })
      .expect(200);
    // The password grant now wants a code; the session, whose login asked for one, does not.
    await request(server).post('/account/tokens').send({ grant_type: 'password', email: 'session@example.com', password: 'session-password' }).expect(401);
    const issued = await session(request(server).post('/account/tokens')).send({ grant_type: 'session' }).expect(200);
    expect(issued.body.User).toMatchObject({ Id: id, Email: 'session@example.com' });
    await request(server)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(issued.body.AccessToken as string))
      .expect(200);

    // Not without the XSRF header (what another site cannot send), not as a GET, not from another login.
    // The session's request with its cookie but without the header: refused.
    const noXsrf = await session(request(server).post('/account/tokens')).unset('X-XSRF-TOKEN').send({ grant_type: 'session' }).expect(401);
    expect(noXsrf.body).toMatchObject({ Code: 1.2 });
    await session(request(server).get('/account/tokens?grant_type=session')).expect(400);
    // Another login of the same name (a direct login, not the account) gets nothing.
    auth.addDirectProvider('local', () => true);
    const c = setCookies(await request(server).post('/auth/local/login').send({ user: 'session@example.com', passwd: 'x' }).expect(200));
    const refused = await request(server).post('/account/tokens').set('Cookie', `JWT=${c.JWT?.value}`).set('X-XSRF-TOKEN', c['XSRF-TOKEN']!.value).send({ grant_type: 'session' }).expect(401);
    expect(refused.body.Description).toMatch(/not the login of an account/);
    await auth.close();
  });

  it('gives an impersonated session no account token: an admin acting as the user cannot mint its credentials', async () => {
    const { app: server, auth } = app({ plugins: [admin({ isAdmin: (user) => user.name === 'root' })] });
    const { id } = await activeUser(server, peer, 'acted@example.com', 'acted-password');
    await loginCookies(server, 'acted@example.com', 'acted-password'); // the user is in the directory from its first login
    auth.addDirectProvider('local', () => true);
    const c = setCookies(await request(server).post('/auth/local/login').send({ user: 'root', passwd: 'x' }).expect(200));
    const started = await request(server)
      .post(`/auth/admin/users/${hashId('accounts', id)}/impersonate`)
      .set('Cookie', `JWT=${c.JWT?.value}`)
      .set('X-XSRF-TOKEN', c['XSRF-TOKEN']!.value)
      .expect(200);
    const acting = setCookies(started);
    const refused = await request(server)
      .post('/account/tokens')
      .set('Cookie', `JWT=${acting.JWT?.value}`)
      .set('X-XSRF-TOKEN', acting['XSRF-TOKEN']?.value ?? c['XSRF-TOKEN']!.value)
      .send({ grant_type: 'session' })
      .expect(403);
    expect(refused.body).toMatchObject({ Code: 1.2, Description: expect.stringMatching(/an admin acting as this user/) });
    await auth.close();
  });

  it('mints an access token from a session only under the step-up policy: a recent login, and hostile requests change nothing', async () => {
    const { app: server, auth, plugin } = app({ stepUpMaxAge: 10_000 });
    const { id } = await activeUser(server, peer, 'recent@example.com', 'recent-password');
    const session = await loginCookies(server, 'recent@example.com', 'recent-password');
    const before = JSON.stringify(await plugin.service.store.get(id));
    const hostile: Array<(r: request.Test) => request.Test> = [
      (r) => r.set('Cookie', 'JWT=not-a-token').set('X-XSRF-TOKEN', 'x').send({ grant_type: 'session' }),
      (r) => r.set('Cookie', `JWT=${'a'.repeat(9000)}`).send({ grant_type: 'session' }),
      (r) => r.set('Authorization', 'Bearer agk_nothing').send({ grant_type: 'session' }),
      (r) => session(r).type('form').send('grant_type=session&grant_type=password'),
      (r) => session(r).send({ grant_type: ['session'] }),
      (r) => session(r).send('"session"'),
      (r) => session(r).set('Content-Type', 'application/json').send('{"grant_type":"session"'),
    ];
    for (const send of hostile) {
      const res = await send(request(server).post('/account/tokens'));
      expect([res.status >= 400 && res.status < 500, typeof res.body.Description]).toEqual([true, 'string']);
    }
    expect(JSON.stringify(await plugin.service.store.get(id))).toBe(before);
    await session(request(server).post('/account/tokens')).send({ grant_type: 'session' }).expect(200);
    // A login older than stepUpMaxAge gets no token: a stolen old session mints no credential.
    setClock(Math.floor(Date.now() / 1000) + 12);
    try {
      const stale = await session(request(server).post('/account/tokens')).send({ grant_type: 'session' }).expect(403);
      expect(stale.body.Description).toMatch(/log in again/);
    } finally {
      jest.useRealTimers();
    }
    await auth.close();
  });

  it('tells an account not activated yet the same on both login paths, and only with the right password', async () => {
    const { app: server, auth } = app();
    await request(server).post('/account/signup').send({ Email: 'pending@example.com', Pwd: 'pending-password', PwdRepeat: 'pending-password' }).expect(202);
    const login = await request(server).post('/auth/accounts/login').send({ user: 'pending@example.com', passwd: 'pending-password' }).expect(403);
    expect(login.body).toEqual({ error: 'the account is not activated: open the link in the activation mail', code: 'not_activated' });
    expect(login.headers['set-cookie']).toBeUndefined();
    const tokens = await request(server).post('/account/tokens').send({ grant_type: 'password', email: 'pending@example.com', password: 'pending-password' }).expect(403);
    expect(tokens.body.Description).toMatch(/not activated/);
    // A wrong password learns nothing about the sign-up.
    const wrong = await request(server).post('/auth/accounts/login').send({ user: 'pending@example.com', passwd: 'not-the-password' }).expect(403);
    expect(wrong.body).toMatchObject({ code: 'credentials_rejected' });
    const unknown = await request(server).post('/auth/accounts/login').send({ user: 'nobody@example.com', passwd: 'not-the-password' }).expect(403);
    expect(unknown.body).toEqual(wrong.body);
    await auth.close();
  });

  it('a password reset removes passkeys and reports them in the notice', async () => {
    const { app: server, auth } = app();
    const { id } = await activeUser(server, peer, 'reset@example.com', 'reset-password-1');
    const userId = hashId('accounts', id);
    await auth.credentials.add({ id: 'pk-1', userId, kind: 'passkey', label: 'key', created: 1, lastUsed: 0, data: {} });
    const since = peer.mails.length;
    await request(server).post('/account/password/forgot').send({ Email: 'reset@example.com' }).expect(202);
    const code = /\n(\S+)\n/.exec((await mailTo(peer, 'reset@example.com', since)).body)?.[1] as string;
    const after = peer.mails.length;
    await request(server).post('/account/password/reset').send({ Email: 'reset@example.com', Code: code, NewPwd: 'reset-password-2', NewPwdRepeat: 'reset-password-2' }).expect(200);
    expect(await auth.credentials.list(userId)).toEqual([]);
    expect((await mailTo(peer, 'reset@example.com', after)).body).toMatch(/1 passkey/);
    await auth.close();
  });

  it('a password reset removes the API keys the user holds and those it made for its organizations: they stop at once, the notice lists them', async () => {
    const orgs = organizations({ sender: senderFunc(() => undefined) });
    const { app: server, auth } = app({ plugins: [orgs, apiKeys()] });
    server.get('/api/me', auth.middleware().auth, (req, res) => void res.json({ key: apiKeyOf(req)?.id }));
    await activeUser(server, peer, 'keys@example.com', 'keys-password-1');
    const session = await loginCookies(server, 'keys@example.com', 'keys-password-1');
    const orgId = (await session(request(server).post('/auth/orgs')).send({ name: 'Keys Inc' }).expect(201)).body.id as string;
    const own = (await session(request(server).post('/auth/api-keys')).send({ name: 'own' }).expect(201)).body.key as string;
    const ofOrg = (
      await session(request(server).post(`/auth/orgs/${orgId}/api-keys`))
        .send({ name: 'org' })
        .expect(201)
    ).body.key as string;
    for (const key of [own, ofOrg]) await request(server).get('/api/me').set('Authorization', `Bearer ${key}`).expect(200);

    const since = peer.mails.length;
    await request(server).post('/account/password/forgot').send({ Email: 'keys@example.com' }).expect(202);
    const code = /\n(\S+)\n/.exec((await mailTo(peer, 'keys@example.com', since)).body)?.[1] as string;
    const after = peer.mails.length;
    await request(server).post('/account/password/reset').send({ Email: 'keys@example.com', Code: code, NewPwd: 'keys-password-2', NewPwdRepeat: 'keys-password-2' }).expect(200);
    for (const key of [own, ofOrg]) expect((await request(server).get('/api/me').set('Authorization', `Bearer ${key}`)).status).toBe(401);
    expect(await auth.credentials.list(orgKeyHolder(orgId))).toEqual([]);
    expect((await mailTo(peer, 'keys@example.com', after)).body).toMatch(/Also removed: 1 API key and 1 organization API key\./);
    await auth.close();
  });

  it("moves credentials and the directory record kept under the bridge's former id (the hash of the e-mail) at the first login", async () => {
    const { app: server, auth } = app();
    const { id } = await activeUser(server, peer, 'legacy@example.com', 'legacy-password');
    const legacy = hashId('accounts', 'legacy@example.com');
    await auth.credentials.add({ id: 'legacy-passkey', userId: legacy, kind: 'passkey', label: 'old laptop', created: 1, lastUsed: 0, data: { userName: 'legacy@example.com' } });
    await auth.users.recordLogin({ id: legacy, name: 'legacy@example.com', picture: '' }, { provider: 'accounts', id: legacy }, 1_000);
    const res = await request(server).post('/auth/accounts/login').send({ user: 'legacy@example.com', passwd: 'legacy-password' }).expect(200);
    const userId = hashId('accounts', id);
    expect(res.body.id).toBe(userId);
    expect(await auth.credentials.list(legacy)).toEqual([]);
    expect((await auth.credentials.list(userId)).map((c) => c.id)).toEqual(['legacy-passkey']);
    expect(await auth.users.get(legacy)).toBeUndefined();
    expect(await auth.users.get(userId)).toMatchObject({ created: 1_000, logins: expect.arrayContaining([{ provider: 'accounts', id: legacy }]) });
    await auth.close();
  });

  it('refuses bad options at once, and answers 503 on its routes until createAuth set it up', async () => {
    expect(() => accounts({ store: 'memory://', baseUrl: 'x' } as never)).toThrow(/sender/);
    const plugin = accounts({ store: 'memory://', sender: { send: async () => undefined }, baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4 });
    const server = express();
    server.use('/account', plugin.router);
    await request(server).post('/account/signup').send({}).expect(503);
    expect(() => plugin.service).toThrow(/createAuth/);
    expect(() => createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, plugins: [plugin, plugin] })).toThrow(/listed twice/);
  });

  it("counts its limits and lockout in the core's state store under createAuth's rateLimits: instances sharing it share them", async () => {
    const shared = createStateStore('memory://');
    const accountStore = new MemoryAccountStore();
    const instance = (): Express => {
      const plugin = accounts({
        store: accountStore,
        sender: senderFunc(() => undefined),
        baseUrl: 'http://127.0.0.1:8080/account',
        bcryptRounds: 4,
        lockout: { freeFailures: 2, firstDelayMs: 60_000 },
      });
      createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, stateStore: shared, rateLimits: { signupPerIp: { limit: 3, windowMs: 60_000 } }, plugins: [plugin] });
      const server = express();
      server.use('/account', plugin.router);
      return server;
    };
    const [a, b] = [instance(), instance()];
    const signup = (server: Express, n: number): request.Test =>
      request(server)
        .post('/account/signup')
        .send({ Email: `limit${n}@example.com`, Pwd: 'correct horse', PwdRepeat: 'correct horse' });
    await signup(a, 1).expect(202);
    await signup(b, 2).expect(202);
    await signup(a, 3).expect(202);
    const limited = await signup(b, 4).expect(429);
    expect(limited.body).toEqual({ Code: 1, Message: 'TooManyRequests', Description: expect.stringMatching(/too many requests/), code: 'rate_limited' });
    expect(await accountStore.getByEmail('limit4@example.com')).toBeUndefined();
    // Past two free wrong passwords, the third (on either instance) makes the next attempt wait, on the other.
    const token = (server: Express): request.Test => request(server).post('/account/tokens').send({ grant_type: 'password', email: 'limit1@example.com', password: 'wrong horse' });
    await token(a).expect(401);
    await token(b).expect(401);
    await token(a).expect(401);
    const locked = await token(b).expect(429);
    expect(locked.headers['retry-after']).toBeDefined();
  });
});
