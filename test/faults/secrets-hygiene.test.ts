import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createAccountRouter, loggerFunc, senderFunc, type DevServer } from '../../src';
import { SECRET, makeApp } from '../support/auth-app';
import { startApplePeer } from '../support/apple-peer';
import { setCookies } from '../support/cookies';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';
import { CookieJar } from '../support/cookie-jar';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { totpCode } from '../support/totp-code';
import { startTelegramPeer } from '../support/telegram-peer';

/** Every secret a flow handled; none may appear in the log. */
const secrets = new Set<string>();
const keep = (value: string | undefined): void => {
  if (value && value.length >= 6) secrets.add(value);
};

describe('secrets hygiene: every flow with a capturing logger', () => {
  it('logs no password, access token, JWT, confirmation token, activation code, client secret, bot token or key', async () => {
    const lines: string[] = [];
    const logger = loggerFunc((line) => lines.push(line));
    const BOT = '987654:hygiene-bot-token-ABCDEFGHIJKLMNOP';
    const CSECRET = 'hygiene-client-secret-0123456789';
    const DIRECT_PW = 'hygiene-direct-password';
    [BOT, CSECRET, DIRECT_PW, SECRET].forEach(keep);
    const telegram = await startTelegramPeer(BOT, 'hygiene_bot');
    const apple = await startApplePeer();
    keep(apple.privateKeyPem.split('\n')[1]);
    let dev: DevServer | undefined;
    const sent: string[] = [];
    let failingSends = 0;
    const { app, auth } = makeApp({ logger, avatarAllowPrivateNetworks: true }, (a) => {
      a.addDirectProvider('pw', (_u, p) => p === DIRECT_PW);
      a.addDirectProvider('broken', (_u, p) => {
        throw new Error(`db rejected password ${p}`);
      });
      dev = a.addDevProvider({ port: 0 });
      a.addVerifyProvider(
        'email',
        'token {{.Token}} ',
        senderFunc((_addr, text) => void sent.push(text)),
      );
      a.addVerifyProvider(
        'badmail',
        'token {{.Token}} ',
        senderFunc((_addr, text) => {
          failingSends++;
          keep(/token (\S+)/.exec(text)?.[1]);
          throw new Error(`relay refused: ${text}`);
        }),
      );
      a.addTelegramProvider({ token: BOT, apiRoot: telegram.apiRoot, polling: false });
      a.addAppleProvider({ clientId: apple.clientId, teamId: apple.teamId, keyId: apple.keyId, tokenUrl: `${apple.url}/auth/token`, jwksUrl: `${apple.url}/auth/keys` }, () => apple.privateKeyPem);
    });
    await dev!.start();
    auth.addCustomProvider(
      'corp',
      { cid: 'corp', csecret: CSECRET },
      {
        authUrl: `${dev!.url}/login/oauth/authorize`,
        tokenUrl: `${dev!.url}/login/oauth/access_token`,
        infoUrl: `${dev!.url}/user`,
        mapUser: (info) => ({ id: `corp_${(info as { id: string }).id}`, name: 'c', picture: '' }),
      },
    );
    const accountLines: string[] = [];
    const mails: string[] = [];
    const accounts = createAccountRouter({
      store: 'memory://',
      sender: senderFunc((_a, text) => {
        mails.push(text);
        if (mails.length === 1) throw new Error(`smtp said no to ${text}`);
      }),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      logger: loggerFunc((line) => accountLines.push(line)),
    });
    app.use('/account', accounts);
    const collect = (res: request.Response): request.Response => {
      const c = setCookies(res);
      keep(c.JWT?.value);
      keep(c['XSRF-TOKEN']?.value);
      keep(res.headers['x-jwt'] as string | undefined);
      return res;
    };

    try {
      // direct: right, wrong, throwing checker; then an expired cookie refreshed
      collect(await request(app).post('/auth/pw/login').send({ user: 'u', passwd: DIRECT_PW }).expect(200));
      await request(app).post('/auth/pw/login').send({ user: 'u', passwd: 'hygiene-wrong-password' }).expect(403);
      keep('hygiene-wrong-password');
      await request(app).post('/auth/broken/login').send({ user: 'u', passwd: 'hygiene-broken-password' }).expect(500);
      keep('hygiene-broken-password');
      const expired = jwt.sign({ aud: 'authgate', exp: Math.floor(Date.now() / 1000) - 5, jti: 'hygiene-jti-1', user: { name: 'u', id: 'pw_u', picture: '' }, auth_provider: { name: 'pw' } }, SECRET, {
        algorithm: 'HS256',
      });
      keep(expired);
      collect(await request(app).get('/private').set('Cookie', `JWT=${expired}; XSRF-TOKEN=hygiene-jti-1`).set('X-XSRF-TOKEN', 'hygiene-jti-1').expect(200));

      // OAuth2 with a client secret, through the dev server
      const corp = await startLogin(app, 'corp');
      keep(corp.handshake);
      collect(await callback(app, await devAuthorize(corp.location, 'oauth-user'), corp.handshake).expect(200));

      // verify: the token, and a sender failing with the text in its message
      await request(app).get('/auth/email/login?user=v&address=v@example.com').expect(200);
      const token = /token (\S+)/.exec(sent[0]!)![1]!;
      keep(token);
      collect(await request(app).get(`/auth/email/login?token=${token}`).expect(200));
      await request(app).get(`/auth/email/login?token=${token}`).expect(403);
      await request(app).get('/auth/badmail/login?user=v&address=v@example.com').expect(502);
      expect(failingSends).toBe(1);

      // telegram: the bot token is in every Bot API URL
      const tg = await request(app).get('/auth/telegram/login').expect(200);
      keep(tg.body.token as string);

      // apple: the ES256 client secret goes to the token endpoint
      const start = await request(app).get('/auth/apple/login').expect(302);
      const state = new URL(start.headers.location as string).searchParams.get('state')!;
      const nonce = new URL(start.headers.location as string).searchParams.get('nonce')!;
      collect(
        await request(app)
          .post('/auth/apple/callback')
          .set('Cookie', `JWT=${setCookies(start).JWT!.value}`)
          .type('form')
          .send({ code: apple.issueCode({ sub: 'h', nonce }), state })
          .expect(200),
      );
      keep(apple.tokenRequests.at(-1)?.client_secret);

      // accounts: password, failed activation mail quoting the link, resend, activation code, access token
      await request(app).post('/account/signup').send({ Email: 'h@example.com', Pwd: 'hygiene-account-pw', PwdRepeat: 'hygiene-account-pw' }).expect(202);
      keep('hygiene-account-pw');
      await new Promise((r) => setTimeout(r, 100));
      await request(app).post('/account/signup/resend').send({ Email: 'h@example.com', Pwd: 'hygiene-account-pw' }).expect(202);
      await new Promise((r) => setTimeout(r, 100));
      const link = new URL(/(http:\/\/\S+)/.exec(mails.at(-1)!)![1]!);
      keep(link.searchParams.get('code') ?? undefined);
      mails.forEach((m) => keep(/code=(\w+)/.exec(m)?.[1]));
      await request(app)
        .get(link.pathname + link.search)
        .expect(200);
      const issued = await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'h@example.com', password: 'hygiene-account-pw' }).expect(200);
      keep(issued.body.AccessToken as string);
      await request(app)
        .post(`/account/profile/${issued.body.User.Id}/change-password`)
        .set('Authorization', `Bearer ${issued.body.AccessToken}`)
        .send({ Pwd: 'hygiene-account-pw', NewPwd: 'hygiene-new-pw-2', NewPwdRepeat: 'hygiene-new-pw-2' })
        .expect(200);
      keep('hygiene-new-pw-2');
    } finally {
      await auth.close();
      await telegram.close();
      await apple.close();
    }

    const log = [...lines, ...accountLines].join('\n');
    expect(lines.length).toBeGreaterThan(5);
    expect(accountLines.join('\n')).toMatch(/activation mail .* not sent/);
    for (const secret of secrets) {
      if (log.includes(secret)) throw new Error(`a secret appears in the log: ${secret.slice(0, 12)}...`);
    }
    expect(secrets.size).toBeGreaterThan(20);
  });

  it('logs no TOTP secret, recovery code, two-factor key, pending login or passkey challenge', async () => {
    const lines: string[] = [];
    const KEY = 'hygiene-two-factor-key-0123456789abcdef';
    const found = new Set<string>([KEY]);
    const { app, auth } = makeApp({ url: 'http://localhost:8080', logger: loggerFunc((line) => lines.push(line)), twoFactor: { key: KEY } }, (a) => {
      a.addPasskeyProvider('passkey');
    });
    try {
      const jar = new CookieJar();
      jar.keep(await request(app).post('/auth/local/login').send({ user: 'hygiene', passwd: 'pw' }).expect(200));
      const enrolled = await jar.on(request(app).post('/auth/2fa/enroll')).expect(200);
      found.add(enrolled.body.secret as string);
      await jar.on(request(app).post('/auth/2fa/confirm')).send({ code: '000000' }).expect(403);
      const confirmed = await jar
        .on(request(app).post('/auth/2fa/confirm'))
        .send({ code: totpCode(enrolled.body.secret as string, Math.floor(Date.now() / 1000) - 30) })
        .expect(200);
      (confirmed.body.recoveryCodes as string[]).forEach((c) => found.add(c));
      const soft = new SoftAuthenticator('http://localhost:8080');
      const options = jar.keep(await jar.on(request(app).post('/auth/passkey/register')).send({}).expect(200));
      found.add(options.body.challenge as string);
      found.add(jar.get('PASSKEY-TOKEN') ?? '');
      await jar
        .on(request(app).post('/auth/passkey/register'))
        .send({ response: soft.create(options.body) })
        .expect(200);
      const waiting = new CookieJar();
      waiting.keep(await request(app).post('/auth/local/login').send({ user: 'hygiene', passwd: 'pw' }).expect(202));
      found.add(waiting.get('2FA-TOKEN') ?? '');
      await waiting.on(request(app).post('/auth/2fa/verify')).send({ code: 'not-a-code' }).expect(403);
      await waiting.on(request(app).post('/auth/2fa/verify')).send({ code: confirmed.body.recoveryCodes[0] }).expect(200);
    } finally {
      await auth.close();
    }
    const log = lines.join('\n');
    for (const secret of found) {
      if (secret.length >= 6 && log.includes(secret)) throw new Error(`a secret appears in the log: ${secret.slice(0, 12)}...`);
    }
    expect(found.size).toBeGreaterThan(12);
  });
});
