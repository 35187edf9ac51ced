import request from 'supertest';
import type { Express } from 'express';
import { createAuth, hashId, mustGetUser, senderFunc, type AccountRouter, type AuthOptions } from '../../src';
import { eventually } from '../support/eventually';
import { SECRET } from '../support/auth-app';
import { activeUser, bearer, mailTo, makeAccountApp } from '../support/account-app';
import { describeOnEveryAccountStore } from '../support/account-stores';
import { CookieJar } from '../support/cookie-jar';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { totpCode } from '../support/totp-code';

const URL_ = 'http://localhost:8080';

/** The auth and account services of one app, bridged: accounts log in at `/auth/accounts/login`; passkeys; `/private`. */
function bridgedApp(ctx: { peer: Parameters<typeof makeAccountApp>[0]; store: { uri: string } }, options: (accounts: () => AccountRouter) => Partial<AuthOptions> = () => ({})) {
  // The account router is made after the auth service, whose options may use it later (ownerAddress).
  const made: { accounts?: AccountRouter } = {};
  const auth = createAuth({ url: URL_, secret: SECRET, twoFactor: { key: 'account-two-factor-key-0123456789abcdef' }, rateLimits: false, ...options(() => made.accounts as AccountRouter) });
  const a = makeAccountApp(ctx.peer, {
    store: ctx.store.uri,
    rateLimits: false,
    baseUrl: `${URL_}/account`,
    loginSessions: { sessions: auth.sessions, provider: 'accounts', credentials: auth.credentials, twoFactor: auth.twoFactor },
  });
  made.accounts = a.accounts;
  auth.addDirectProvider('accounts', a.accounts.credentialChecker());
  auth.addPasskeyProvider('passkey');
  a.app.use('/auth', auth.handlers().authRouter);
  a.app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));
  return { auth, a, close: async () => void (await Promise.all([auth.close(), a.accounts.close()])) };
}

/** Registers a passkey of `soft` for the user logged in through `jar`. */
async function addPasskey(app: Express, jar: CookieJar, soft: SoftAuthenticator): Promise<void> {
  const options = jar.keep(await jar.on(request(app).post('/auth/passkey/register')).send({}).expect(200));
  jar.keep(
    await jar
      .on(request(app).post('/auth/passkey/register'))
      .send({ response: soft.create(options.body) })
      .expect(200),
  );
}

describeOnEveryAccountStore("an account's passkeys and second factor", (ctx) => {
  it('follow an e-mail change, and go with the account: a later sign-up of the address gets none', async () => {
    const { auth, a, close } = bridgedApp(ctx);
    try {
      const { id, token } = await activeUser(a.app, ctx.peer, 'olga@example.com', 'olga-password');
      const jar = new CookieJar();
      jar.keep(await request(a.app).post('/auth/accounts/login').send({ user: 'olga@example.com', passwd: 'olga-password' }).expect(200));
      const soft = new SoftAuthenticator(URL_);
      await addPasskey(a.app, jar, soft);
      const secret = (await jar.on(request(a.app).post('/auth/2fa/enroll')).expect(200)).body.secret as string;
      const second = Math.floor(Date.now() / 1000);
      if (second % 30 > 27) await new Promise((r) => setTimeout(r, 3000));
      await jar
        .on(request(a.app).post('/auth/2fa/confirm'))
        .send({ code: totpCode(secret, Math.floor(Date.now() / 1000)) })
        .expect(200);
      // Access tokens of the account service need the second factor too.
      const grant = { grant_type: 'password', email: 'olga@example.com', password: 'olga-password' };
      expect((await request(a.app).post('/account/tokens').send(grant).expect(401)).body.Code).toBe(2.3);
      expect(
        (
          await request(a.app)
            .post('/account/tokens')
            .send({ ...grant, otp: '000000' })
            .expect(401)
        ).body.Code,
      ).toBe(2.3);
      await request(a.app)
        .post('/account/tokens')
        .send({ ...grant, otp: totpCode(secret, Math.floor(Date.now() / 1000) + 30) })
        .expect(200);
      const passkeyLogin = async (): Promise<request.Response> => {
        const browser = new CookieJar();
        const opts = browser.keep(await request(a.app).post('/auth/passkey/login').send({}).expect(200));
        return browser.on(request(a.app).post('/auth/passkey/login')).send({ response: soft.get(opts.body) });
      };

      const since = ctx.peer.mails.length;
      await request(a.app)
        .post(`/account/profile/${id}/email`)
        .set(...bearer(token))
        .send({ NewEmail: 'olga.new@example.com', Pwd: 'olga-password' })
        .expect(202);
      const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(ctx.peer, 'olga.new@example.com', since)).body)?.[1];
      await request(a.app)
        .post(`/account/profile/${id}/email/confirm`)
        .set(...bearer(token))
        .send({ Code: code })
        .expect(200);
      expect((await passkeyLogin()).body).toMatchObject({ id: hashId('accounts', id), name: 'olga.new@example.com' });
      // The bridge's user id follows the account, not the address: its passkey and second factor stay with it.
      expect((await auth.credentials.list(hashId('accounts', id))).map((c) => c.kind).sort()).toEqual(['passkey', 'totp']);
      // The second factor came along: the new address's password login waits for it.
      expect((await request(a.app).post('/auth/accounts/login').send({ user: 'olga.new@example.com', passwd: 'olga-password' })).status).toBe(202);

      await request(a.app)
        .delete(`/account/profile/${id}`)
        .set(...bearer(token))
        .send({ Pwd: 'olga-password' })
        .expect(200);
      expect(await auth.credentials.list(hashId('accounts', id))).toEqual([]);
      expect((await passkeyLogin()).status).toBe(403);
      await activeUser(a.app, ctx.peer, 'olga.new@example.com', 'someone-else-password');
      expect((await request(a.app).post('/auth/accounts/login').send({ user: 'olga.new@example.com', passwd: 'someone-else-password' })).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('a password reset takes the account back: sessions end, the passkeys and linked logins a stolen session added go (the notice says so), and two-factor is asked', async () => {
    const notices: string[] = [];
    const { auth, a, close } = bridgedApp(ctx, (accounts) => ({
      revocationCheck: 'every-request',
      credentialNotices: { sender: senderFunc((to, text) => void notices.push(`${to}: ${text}`)), addressOf: (u) => accounts().ownerAddress(u) },
    }));
    auth.addDirectProvider('other', (_u, p) => p === 'other-pw');
    auth.useLoginLinks(a.accounts.loginLinks());
    try {
      const { id } = await activeUser(a.app, ctx.peer, 'pia@example.com', 'pia-password');
      // The thief's browser, with the victim's session: a passkey of his, and his own login linked.
      const thief = new CookieJar();
      thief.keep(await request(a.app).post('/auth/accounts/login').send({ user: 'pia@example.com', passwd: 'pia-password' }).expect(200));
      const soft = new SoftAuthenticator(URL_);
      await addPasskey(a.app, thief, soft);
      thief.keep(await thief.on(request(a.app).post('/auth/other/link')).send({}).expect(200));
      thief.keep(await thief.on(request(a.app).post('/auth/other/login')).send({ user: 'thief', passwd: 'other-pw' }).expect(200));
      expect(await a.accounts.store.accountOfLogin(hashId('other', 'thief'))).toBe(id);
      const userId = hashId('accounts', id);
      expect((await auth.credentials.list(userId)).map((c) => c.kind)).toEqual(['passkey']);
      // The owner was told about each, at the account's address.
      await eventually(async () => expect(notices).toHaveLength(2));
      expect(notices[0]).toMatch(/^pia@example\.com: Hello pia@example\.com, on your account a passkey \(Passkey of \d{4}-\d\d-\d\d\) was added\./);
      expect(notices[1]).toMatch(/^pia@example\.com: .*a linked login \(other\) was added/);

      // The owner resets the password.
      let since = ctx.peer.mails.length;
      await request(a.app).post('/account/password/forgot').send({ Email: 'pia@example.com' }).expect(202);
      const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(ctx.peer, 'pia@example.com', since)).body)?.[1] ?? '';
      since = ctx.peer.mails.length;
      await request(a.app).post('/account/password/reset').send({ Email: 'pia@example.com', Code: code, NewPwd: 'pia-new-password', NewPwdRepeat: 'pia-new-password' }).expect(200);
      const notice = await mailTo(ctx.peer, 'pia@example.com', since);
      expect(notice.body).toMatch(/was reset.*Also removed: 1 passkey and 1 linked login \(other\)/s);

      expect(await auth.credentials.list(userId)).toEqual([]);
      expect(await a.accounts.store.accountOfLogin(hashId('other', 'thief'))).toBeUndefined();
      await thief.on(request(a.app).get('/private')).expect(401);
      const linkedAgain = new CookieJar();
      const own = linkedAgain.keep(await request(a.app).post('/auth/other/login').send({ user: 'thief', passwd: 'other-pw' }).expect(200));
      expect(own.body.id).toBe(hashId('other', 'thief'));
      // The thief's passkey logs in as no one now.
      const browser = new CookieJar();
      const login = browser.keep(await browser.on(request(a.app).post('/auth/passkey/login')).send({}).expect(200));
      expect((await browser.on(request(a.app).post('/auth/passkey/login')).send({ response: soft.get(login.body) })).status).toBe(403);
    } finally {
      await close();
    }
  });

  it('a reset of an account with two-factor on needs the second factor too (Otp): the mailbox alone is not enough', async () => {
    const { a, close } = bridgedApp(ctx);
    try {
      await activeUser(a.app, ctx.peer, 'quinn@example.com', 'quinn-password');
      const jar = new CookieJar();
      jar.keep(await request(a.app).post('/auth/accounts/login').send({ user: 'quinn@example.com', passwd: 'quinn-password' }).expect(200));
      const enrolled = await jar.on(request(a.app).post('/auth/2fa/enroll')).expect(200);
      const now = Math.floor(Date.now() / 1000);
      const confirmed = await jar
        .on(request(a.app).post('/auth/2fa/confirm'))
        .send({ code: totpCode(enrolled.body.secret as string, now) })
        .expect(200);
      const recovery = confirmed.body.recoveryCodes as string[];
      const since = ctx.peer.mails.length;
      await request(a.app).post('/account/password/forgot').send({ Email: 'quinn@example.com' }).expect(202);
      const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(ctx.peer, 'quinn@example.com', since)).body)?.[1] ?? '';
      const reset = (extra: Record<string, string>) =>
        request(a.app)
          .post('/account/password/reset')
          .send({ Email: 'quinn@example.com', Code: code, NewPwd: 'quinn-new-password', NewPwdRepeat: 'quinn-new-password', ...extra });
      expect((await reset({}).expect(401)).body.Code).toBe(2.3);
      expect((await reset({ Otp: '000000' }).expect(401)).body.Code).toBe(2.3);
      await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'quinn@example.com', password: 'quinn-new-password', otp: recovery[1] }).expect(401);
      await reset({ Otp: recovery[0] as string }).expect(200);
      await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'quinn@example.com', password: 'quinn-new-password', otp: recovery[1] }).expect(200);
    } finally {
      await close();
    }
  });

  it("credentials kept under the bridge's former id (the hash of the e-mail) move to the account's id at the first login", async () => {
    const { auth, a, close } = bridgedApp(ctx);
    try {
      const { id } = await activeUser(a.app, ctx.peer, 'rita@example.com', 'rita-password');
      const legacy = hashId('accounts', 'rita@example.com');
      await auth.credentials.add({
        id: 'legacy-passkey',
        userId: legacy,
        kind: 'passkey',
        label: 'old laptop',
        created: 1,
        lastUsed: 0,
        data: { publicKey: 'AA', counter: 0, transports: [], userName: 'rita@example.com' },
      });
      const res = await request(a.app).post('/auth/accounts/login').send({ user: 'rita@example.com', passwd: 'rita-password' }).expect(200);
      expect(res.body.id).toBe(hashId('accounts', id));
      expect(await auth.credentials.list(legacy)).toEqual([]);
      expect((await auth.credentials.list(hashId('accounts', id))).map((c) => [c.id, c.label])).toEqual([['legacy-passkey', 'old laptop']]);
    } finally {
      await close();
    }
  });
});
