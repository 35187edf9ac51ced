import request from 'supertest';
import { createAuth, hashId, mustGetUser } from '../../src';
import { SECRET } from '../support/auth-app';
import { activeUser, bearer, mailTo, makeAccountApp } from '../support/account-app';
import { describeOnEveryAccountStore } from '../support/account-stores';
import { CookieJar } from '../support/cookie-jar';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { totpCode } from '../support/totp-code';

const URL_ = 'http://localhost:8080';

describeOnEveryAccountStore("an account's passkeys and second factor", (ctx) => {
  it('follow an e-mail change, and go with the account: a later sign-up of the address gets none', async () => {
    const auth = createAuth({ url: URL_, secret: SECRET, twoFactor: { key: 'account-two-factor-key-0123456789abcdef' }, rateLimits: false });
    const a = makeAccountApp(ctx.peer, {
      store: ctx.store.uri,
      rateLimits: false,
      baseUrl: `${URL_}/account`,
      loginSessions: { sessions: auth.sessions, provider: 'accounts', credentials: auth.credentials, twoFactor: auth.twoFactor },
    });
    auth.addDirectProvider('accounts', a.accounts.credentialChecker());
    auth.addPasskeyProvider('passkey');
    a.app.use('/auth', auth.handlers().authRouter);
    a.app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));
    try {
      const { id, token } = await activeUser(a.app, ctx.peer, 'olga@example.com', 'olga-password');
      const jar = new CookieJar();
      jar.keep(await request(a.app).post('/auth/accounts/login').send({ user: 'olga@example.com', passwd: 'olga-password' }).expect(200));
      const soft = new SoftAuthenticator(URL_);
      const options = jar.keep(await jar.on(request(a.app).post('/auth/passkey/register')).send({}).expect(200));
      jar.keep(
        await jar
          .on(request(a.app).post('/auth/passkey/register'))
          .send({ response: soft.create(options.body) })
          .expect(200),
      );
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
      expect((await passkeyLogin()).body).toMatchObject({ id: hashId('accounts', 'olga.new@example.com'), name: 'olga.new@example.com' });
      expect(await auth.credentials.list(hashId('accounts', 'olga@example.com'))).toEqual([]);
      // The second factor came along: the new address's password login waits for it.
      expect((await request(a.app).post('/auth/accounts/login').send({ user: 'olga.new@example.com', passwd: 'olga-password' })).status).toBe(202);

      await request(a.app)
        .delete(`/account/profile/${id}`)
        .set(...bearer(token))
        .send({ Pwd: 'olga-password' })
        .expect(200);
      expect(await auth.credentials.list(hashId('accounts', 'olga.new@example.com'))).toEqual([]);
      expect((await passkeyLogin()).status).toBe(403);
      await activeUser(a.app, ctx.peer, 'olga.new@example.com', 'someone-else-password');
      expect((await request(a.app).post('/auth/accounts/login').send({ user: 'olga.new@example.com', passwd: 'someone-else-password' })).status).toBe(200);
    } finally {
      await auth.close();
      await a.accounts.close();
    }
  });
});
