import { format } from 'node:util';
import request from 'supertest';
import { eventually } from '../support/eventually';
import { createAuth, hashId } from '../../src';
import { SECRET } from '../support/auth-app';
import { activeUser, makeAccountApp, bearer } from '../support/account-app';
import { setCookies } from '../support/cookies';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

describe('account router: life cycle with mail through smtp-server', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  it('signs up, activates once, issues tokens, reads and updates the profile, changes the password, revokes tokens', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const since = peer.mails.length;
    const signup = await request(app).post('/account/signup').send({ Email: ' Ada@Example.COM ', Pwd: 'first-pass', PwdRepeat: 'first-pass' }).expect(202);
    expect(signup.body.Message).toMatch(/activation/);
    const mail = await peer.nextMail(since);
    expect(mail.to).toEqual(['ada@example.com']);
    const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mail.body)![1]!);
    expect(link.pathname).toMatch(/^\/account\/active\/[0-9a-f]{24}$/);

    // One canonical form (trim, NFC, lower case): every spelling is the same account.
    const early = await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'Ada@EXAMPLE.com', password: 'first-pass' }).expect(403);
    expect(early.body).toEqual({ Code: 1.2, Message: 'InvalidCredential', Description: 'the account is not activated', code: 'invalid_credential' });
    expect(
      (
        await request(app)
          .get(link.pathname + link.search)
          .expect(200)
      ).body,
    ).toEqual({ Message: 'Account activated' });
    expect(
      (
        await request(app)
          .get(link.pathname + link.search)
          .expect(400)
      ).body.Code,
    ).toBe(1.0);

    const issued = await request(app).post('/account/tokens').type('form').send({ grant_type: 'password', email: 'Ada@example.com', password: 'first-pass' }).expect(200);
    const { User, ExpiredOn, AccessToken } = issued.body as { User: Record<string, unknown>; ExpiredOn: string; AccessToken: string };
    expect(Buffer.from(AccessToken, 'base64')).toHaveLength(32);
    expect(ExpiredOn).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(ExpiredOn) - Date.now()).toBeGreaterThan(3_500_000);
    expect(User).toMatchObject({ Email: 'ada@example.com', Approved: true, Pwd: '', OldPwd: [], ConfirmCodes: {} });
    const id = User.Id as string;
    // Only a hash of the token is stored.
    expect(await accounts.store.getToken(AccessToken)).toBeUndefined();

    const profile = await request(app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(AccessToken))
      .expect(200);
    expect(profile.body).toMatchObject({ Id: id, FirstName: '', LastName: '' });
    const saved = await request(app)
      .put(`/account/profile/${id}/info`)
      .set(...bearer(AccessToken))
      .send({ FirstName: 'Ada', LastName: 'Lovelace' })
      .expect(200);
    expect(saved.body).toMatchObject({ FirstName: 'Ada', LastName: 'Lovelace' });
    expect(
      (
        await request(app)
          .get(`/account/profile/${id}/info`)
          .set(...bearer(AccessToken))
          .expect(200)
      ).body.LastName,
    ).toBe('Lovelace');

    const second = await request(app).get('/account/tokens?grant_type=password&email=Ada@example.com&password=first-pass').expect(200);
    await request(app)
      .post(`/account/profile/${id}/change-password`)
      .set(...bearer(AccessToken))
      .send({ Pwd: 'wrong-pass', NewPwd: 'second-pass', NewPwdRepeat: 'second-pass' })
      .expect(403);
    await request(app)
      .post(`/account/profile/${id}/change-password`)
      .set(...bearer(AccessToken))
      .send({ Pwd: 'first-pass', NewPwd: 'second-pass', NewPwdRepeat: 'second-pass' })
      .expect(200);
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'Ada@example.com', password: 'first-pass' }).expect(401);
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'Ada@example.com', password: 'second-pass' }).expect(200);
    // The other session was revoked; the one that changed the password stays.
    await request(app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(second.body.AccessToken as string))
      .expect(401);
    await request(app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(AccessToken))
      .expect(200);
    await request(app)
      .delete('/account/tokens')
      .set(...bearer(AccessToken))
      .expect(200);
    await request(app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(AccessToken))
      .expect(401);
  });

  it('expires tokens after onlineThreshold (401, not 500)', async () => {
    const { app } = makeAccountApp(peer, { onlineThreshold: 200 });
    const { id, token } = await activeUser(app, peer, 'short@example.com');
    await request(app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(token))
      .expect(200);
    await new Promise((r) => setTimeout(r, 250));
    const res = await request(app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(token))
      .expect(401);
    expect(res.body).toMatchObject({ Code: 1.2 });
  });

  it("refuses another user's profile without manage_user (403) and allows it with (200); managers list users", async () => {
    const { app, accounts } = makeAccountApp(peer, { managers: ['boss@example.com'] });
    const alice = await activeUser(app, peer, 'alice@example.com');
    const bob = await activeUser(app, peer, 'bob@example.com');
    await request(app)
      .get(`/account/profile/${alice.id}/info`)
      .set(...bearer(bob.token))
      .expect(403);
    await request(app)
      .put(`/account/profile/${alice.id}/info`)
      .set(...bearer(bob.token))
      .send({ FirstName: 'x' })
      .expect(403);
    await request(app)
      .post(`/account/profile/${alice.id}/change-password`)
      .set(...bearer(bob.token))
      .send({ NewPwd: 'hijacked-1', NewPwdRepeat: 'hijacked-1' })
      .expect(403);
    await request(app)
      .get('/account/profiles')
      .set(...bearer(bob.token))
      .expect(403);
    const boss = await activeUser(app, peer, 'boss@example.com');
    await request(app)
      .get(`/account/profile/${alice.id}/info`)
      .set(...bearer(boss.token))
      .expect(200);
    const list = await request(app)
      .get('/account/profiles?limit=2')
      .set(...bearer(boss.token))
      .expect(200);
    expect(list.body.Total).toBe(3);
    expect(list.body.Items).toHaveLength(2);
    for (const item of list.body.Items as Array<Record<string, unknown>>) expect(item).toMatchObject({ Pwd: '', OldPwd: [], ConfirmCodes: {} });
    expect(await accounts.grantManageUser('bob@example.com')).toBe(true);
    await request(app)
      .get(`/account/profile/${alice.id}/info`)
      .set(...bearer(bob.token))
      .expect(200);
    expect(await accounts.grantManageUser('nobody@example.com')).toBe(false);
  });

  it('answers 400 to fields that are JSON objects where text belongs, never a 5xx (an object may carry its own toString)', async () => {
    const { app } = makeAccountApp(peer);
    for (const path of ['/account/signup', '/account/signup/resend', '/account/password/forgot', '/account/password/reset', '/account/tokens']) {
      const res = await request(app)
        .post(path)
        .send({ Email: { toString: 1 }, email: { toString: 1 }, grant_type: 'password', password: { valueOf: 1 }, Pwd: 'password-1', PwdRepeat: 'password-1' });
      expect([path, res.status]).toEqual([path, 400]);
    }
  });

  it('answers every error code and status of the contract', async () => {
    const { app } = makeAccountApp(peer);
    const { id, token } = await activeUser(app, peer, 'errs@example.com');
    const cases: Array<[request.Test, number, number]> = [
      [request(app).post('/account/signup').send({ Email: 'x@example.com' }), 400, 1.0],
      [request(app).post('/account/signup').send({ Email: 'x@example.com', Pwd: 'password-1', PwdRepeat: 'password-2' }), 400, 1.3],
      [request(app).post('/account/signup').send({ Email: 'x@example.com', Pwd: 'short', PwdRepeat: 'short' }), 400, 1.4],
      [
        request(app)
          .post('/account/signup')
          .send({ Email: 'x@example.com', Pwd: 'é'.repeat(257), PwdRepeat: 'é'.repeat(257) }),
        400,
        1.4,
      ],
      [request(app).post('/account/signup').send({ Email: 'not-an-email', Pwd: 'password-1', PwdRepeat: 'password-1' }), 400, 1.6],
      [request(app).post('/account/signup').send({ Email: 'errs@EXAMPLE.com', Pwd: 'password-1', PwdRepeat: 'password-1' }), 409, 1.5],
      [request(app).get('/account/active/not-an-id?code=x'), 400, 1.7],
      [request(app).get(`/account/active/${'0'.repeat(24)}?code=x`), 404, 1.9],
      [request(app).get(`/account/active/${id}`), 400, 1.0],
      [request(app).post('/account/tokens').send({}), 400, 1.0],
      [request(app).post('/account/tokens').send({ grant_type: 'client_credentials', email: 'e', password: 'p' }), 400, 1.1],
      [request(app).post('/account/tokens').send({ grant_type: 'password', email: 'errs@example.com', password: 'wrong-password' }), 401, 1.2],
      [request(app).post('/account/tokens').send({ grant_type: 'password', email: 'ghost@example.com', password: 'wrong-password' }), 401, 1.2],
      [request(app).get(`/account/profile/${id}/info`), 401, 1.2],
      [request(app).get(`/account/profile/${id}/info`).set('Authorization', 'Bearer nope'), 401, 1.2],
      [
        request(app)
          .get('/account/profile/bad/info')
          .set(...bearer(token)),
        400,
        1.7,
      ],
      [
        request(app)
          .put(`/account/profile/${id}/info`)
          .set(...bearer(token))
          .send({ Unknown: 'x' }),
        400,
        1.0,
      ],
      [
        request(app)
          .put(`/account/profile/${id}/info`)
          .set(...bearer(token))
          .send({ FirstName: 'x'.repeat(300) }),
        400,
        1.0,
      ],
      [
        request(app)
          .post(`/account/profile/${id}/change-password`)
          .set(...bearer(token))
          .send({ Pwd: 'correct horse', NewPwd: 'a-new-pass', NewPwdRepeat: 'b-new-pass' }),
        400,
        1.3,
      ],
      [
        request(app)
          .post(`/account/profile/${id}/change-password`)
          .set(...bearer(token))
          .send({ Pwd: 'correct horse', NewPwd: 'tiny', NewPwdRepeat: 'tiny' }),
        400,
        1.4,
      ],
      [
        request(app)
          .get('/account/profiles?limit=1000')
          .set(...bearer(token)),
        403,
        1.2,
      ],
      [request(app).get('/account/nowhere'), 404, 1.0],
    ];
    for (const [req, status, code] of cases) {
      const res = await req;
      expect({ url: (req as unknown as { url: string }).url, status: res.status, code: res.body.Code }).toEqual({ url: (req as unknown as { url: string }).url, status, code });
      expect(typeof res.body.Message).toBe('string');
      expect(typeof res.body.Description).toBe('string');
    }
  });

  it('answers bad bodies with 4xx JSON and stores nothing: malformed JSON, arrays, 1 MB, unicode and control characters', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const bad: Array<[request.Test, number]> = [
      [request(app).post('/account/signup').set('Content-Type', 'application/json').send('{"Email": '), 400],
      [
        request(app)
          .post('/account/signup')
          .send([{ Email: 'a@example.com' }]),
        400,
      ],
      [
        request(app)
          .post('/account/signup')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ Email: `${'a'.repeat(1024 * 1024)}@example.com`, Pwd: 'p', PwdRepeat: 'p' })),
        413,
      ],
      [request(app).post('/account/signup').send({ Email: 'a\u0000@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }), 400],
      [
        request(app)
          .post('/account/signup')
          .send({ Email: { $gt: '' }, Pwd: 'password-1', PwdRepeat: 'password-1' }),
        400,
      ],
      [
        request(app)
          .post('/account/signup')
          .send({ Email: 'a@example.com', Pwd: ['password-1'], PwdRepeat: 'password-1' }),
        400,
      ],
      [request(app).post('/account/tokens').set('Content-Type', 'application/json').send('[1,2]'), 400],
      [request(app).post('/account/signup').set('Content-Type', 'text/plain').send('Email=a@example.com'), 400],
    ];
    for (const [req, status] of bad) {
      const res = await req;
      expect(res.status).toBe(status);
      expect(res.body.Code).toBe(1.0 + (res.body.Code === 1.6 ? 0.6 : 0));
    }
    expect((await accounts.store.list(0, 10)).total).toBe(0);
    const unicode = await request(app).post('/account/signup').send({ Email: 'zoë@exämple.com', Pwd: 'pässwörd-ünïcode', PwdRepeat: 'pässwörd-ünïcode' });
    expect(unicode.status).toBe(202);
  });

  it('of 20 racing sign-ups with one e-mail, one account remains, and exactly one mailed code activates it, with its own password', async () => {
    const { app, accounts } = makeAccountApp(peer, { store: 'memory://', rateLimits: false });
    const since = peer.mails.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(app)
          .post('/account/signup')
          .send({ Email: 'race@example.com', Pwd: `password-${i}`, PwdRepeat: `password-${i}` }),
      ),
    );
    expect(results.every((r) => r.status === 202)).toBe(true);
    expect((await accounts.store.list(0, 100)).total).toBe(1);
    const raceMails = () => peer.mails.slice(since).filter((m) => m.to.includes('race@example.com'));
    while (raceMails().length < 20) await peer.nextMail();
    const links = raceMails().map((m) => new URL(/(http:\/\/\S+\/active\/\S+)/.exec(m.body)![1]!));
    expect(links).toHaveLength(20);
    const activations = await Promise.all(links.map((l) => request(app).get(l.pathname + l.search)));
    expect(activations.filter((r) => r.status === 200)).toHaveLength(1);
    const logins = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(app)
          .post('/account/tokens')
          .send({ grant_type: 'password', email: 'race@example.com', password: `password-${i}` }),
      ),
    );
    expect(logins.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('keeps the account when the activation mail fails, and resend delivers a new working code', async () => {
    const lines: string[] = [];
    const dead = makeAccountApp({ ...peer, port: 1 } as SmtpPeer, { logger: { logf: (f, ...a) => lines.push([f, ...a].join(' ')) } });
    await request(dead.app).post('/account/signup').send({ Email: 'later@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.join('\n')).toMatch(/not sent/);
    const store = dead.accounts.store;
    const { app } = makeAccountApp(peer, { store });
    const since = peer.mails.length;
    await request(app).post('/account/signup/resend').send({ Email: 'later@example.com', Pwd: 'password-1' }).expect(202);
    const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec((await peer.nextMail(since)).body)![1]!);
    await request(app)
      .get(link.pathname + link.search)
      .expect(200);
    await request(app).post('/account/signup/resend').send({ Email: 'nobody@example.com', Pwd: 'password-1' }).expect(202);
  });

  it('says when the activation mail failed without a logger configured (console.warn), and which spelling of a field it reads', async () => {
    const warned: string[] = [];
    const spy = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(format(...args)));
    try {
      const dead = makeAccountApp({ ...peer, port: 1 } as SmtpPeer);
      await request(dead.app).post('/account/signup').send({ Email: 'silent@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(202);
      await eventually(async () => expect(warned.join('\n')).toMatch(/\[WARN\] activation mail to account \S+ not sent/));
      expect(warned.join('\n')).not.toContain('password-1');
      const lower = await request(dead.app).post('/account/signup').send({ email: 'x@example.com', pwd: 'password-1', pwdRepeat: 'password-1' }).expect(400);
      expect(lower.body.Description).toBe('Email is required (the field names are capitalised: send "Email", not "email")');
      expect((await request(dead.app).post('/account/signup').send({}).expect(400)).body.Description).toBe('Email is required');
    } finally {
      spy.mockRestore();
    }
  });

  it('bridges to the direct provider: an activated account logs in at /auth/<name>/login and gets the JWT cookie', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const { id } = await activeUser(app, peer, 'bridge@example.com', 'bridge-pass');
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    auth.addDirectProvider('accounts', accounts.credentialChecker());
    app.use('/auth', auth.handlers().authRouter);
    const res = await request(app).post('/auth/accounts/login').send({ user: 'bridge@example.com', passwd: 'bridge-pass' }).expect(200);
    // The user id hashes the account's immutable id, not the address: a later account of the same address is another user.
    expect(res.body).toMatchObject({ id: hashId('accounts', id), name: 'bridge@example.com' });
    expect(setCookies(res).JWT?.value).toBeTruthy();
    await request(app).post('/auth/accounts/login').send({ user: 'bridge@example.com', passwd: 'wrong-pass' }).expect(403);
    await request(app).post('/account/signup').send({ Email: 'inactive@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(202);
    await request(app).post('/auth/accounts/login').send({ user: 'inactive@example.com', passwd: 'password-1' }).expect(403);
  });

  it('a password change ends every session of the account bridge (loginSessions), by every spelling of the e-mail', async () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, revocationCheck: 'every-request' });
    const { app, accounts } = makeAccountApp(peer, { loginSessions: { sessions: auth.sessions, provider: 'accounts' } });
    const { id, token } = await activeUser(app, peer, 'sessions@example.com', 'bridge-pass');
    auth.addDirectProvider('accounts', accounts.credentialChecker());
    app.use('/auth', auth.handlers().authRouter);
    app.get('/private', auth.middleware().auth, (_req, res) => void res.json({ ok: true }));
    const logins = await Promise.all(['sessions@example.com', 'Sessions@Example.COM'].map((user) => request(app).post('/auth/accounts/login').send({ user, passwd: 'bridge-pass' }).expect(200)));
    const cookies = logins.map((r) => setCookies(r));
    for (const c of cookies) await request(app).get('/private').set('Cookie', `JWT=${c.JWT?.value}`).set('X-XSRF-TOKEN', c['XSRF-TOKEN']!.value).expect(200);
    expect(await auth.sessions.list(hashId('accounts', id))).toHaveLength(2);
    await request(app)
      .post(`/account/profile/${id}/change-password`)
      .set(...bearer(token))
      .send({ Pwd: 'bridge-pass', NewPwd: 'bridge-pass-2', NewPwdRepeat: 'bridge-pass-2' })
      .expect(200);
    for (const c of cookies) await request(app).get('/private').set('Cookie', `JWT=${c.JWT?.value}`).set('X-XSRF-TOKEN', c['XSRF-TOKEN']!.value).expect(401);
    expect(await auth.sessions.list(hashId('accounts', id))).toEqual([]);
    expect(() => makeAccountApp(peer, { loginSessions: { sessions: auth.sessions, provider: '' } })).toThrow(/loginSessions/);
    await auth.close();
  });

  it('throws at creation without a sender, baseUrl or with a bad store URI', () => {
    expect(() => makeAccountApp(peer, { sender: undefined as never })).toThrow(/sender/);
    expect(() => makeAccountApp(peer, { baseUrl: 'nope' })).toThrow(/baseUrl/);
    expect(() => makeAccountApp(peer, { store: 'redis://x' })).toThrow(/account store URI/);
    expect(() => makeAccountApp(peer, { bcryptRounds: 2 })).toThrow(/bcryptRounds/);
    expect(() => makeAccountApp(peer, { onlineThreshold: -1 })).toThrow(/onlineThreshold/);
    expect(() => makeAccountApp(peer, { activationCodeTtl: Number.NaN })).toThrow(/activationCodeTtl/);
    expect(() => makeAccountApp(peer, { bodyLimit: 0 })).toThrow(/bodyLimit/);
    expect(() => makeAccountApp(peer, { managers: ['not an address'] })).toThrow(/managers/);
    expect(() => makeAccountApp(peer, { activationTemplate: 42 as never })).toThrow(/activationTemplate/);
  });
});
