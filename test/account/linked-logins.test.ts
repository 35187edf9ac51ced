import express, { type Express } from 'express';
import request from 'supertest';
import { createAuth, EmailSender, hashId, mustGetUser, type Auth, type DevServer } from '../../src';
import type { AccountRouter, AccountRouterOptions } from '../../src/accounts';
import { SECRET } from '../support/auth-app';
import { activeUser, bearer, mailTo, makeAccountApp } from '../support/account-app';
import { describeOnEveryAccountStore, type AccountFlowContext } from '../support/account-stores';
import { CookieJar } from '../support/cookie-jar';
import { setCookies } from '../support/cookies';
import { devAuthorize } from '../support/oauth-flow';

interface LinkApp {
  app: Express;
  auth: Auth;
  accounts: AccountRouter;
  dev: DevServer;
  close(): Promise<void>;
}

/** Auth with the account bridge `accounts`, a direct `local` (password `pw`), the dev OAuth2 server and an e-mail login, linked through the account service. */
async function makeLinkApp(ctx: AccountFlowContext, options: Partial<AccountRouterOptions> = {}): Promise<LinkApp> {
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, revocationCheck: 'every-request', rateLimits: false });
  const { app, accounts } = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false, loginSessions: { sessions: auth.sessions, provider: 'accounts' }, ...options });
  auth.addDirectProvider('accounts', accounts.credentialChecker());
  auth.addDirectProvider('local', (_user, passwd) => passwd === 'pw');
  const dev = auth.addDevProvider({ port: 0 });
  const sender = new EmailSender({ host: '127.0.0.1', port: ctx.peer.port, from: 'login@app.example', subject: 'Login', timeout: 5000 });
  auth.addVerifyProvider('email', 'Open http://127.0.0.1:8080/auth/email/login?token={{.Token}}', sender);
  auth.useLoginLinks(accounts.loginLinks());
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));
  await dev.start();
  return {
    app,
    auth,
    accounts,
    dev,
    close: async () => {
      await dev.stop();
      await auth.close();
      await accounts.close();
    },
  };
}

/** The account bridge's user id of the account with this e-mail: the hash of the account's id. */
async function accountUserId(t: { accounts: { store: { getByEmail(email: string): Promise<{ Id: string } | undefined> } } }, email: string): Promise<string> {
  return hashId('accounts', (await t.accounts.store.getByEmail(email))?.Id ?? 'no such account');
}

async function accountLogin(app: Express, jar: CookieJar, email: string, pwd: string): Promise<void> {
  jar.keep(await request(app).post('/auth/accounts/login').send({ user: email, passwd: pwd }).expect(200));
}

/** A dev OAuth2 login in this browser, as `username` at the dev server; the callback's answer. */
async function devLogin(app: Express, jar: CookieJar, username: string): Promise<request.Response> {
  const start = jar.keep(await jar.on(request(app).get('/auth/dev/login')).expect(302));
  const callback = await devAuthorize(new URL(start.headers.location as string), username);
  return jar.keep(await jar.on(request(app).get(callback.pathname + callback.search)));
}

async function startLink(app: Express, jar: CookieJar, provider: string): Promise<request.Response> {
  return jar.keep(await jar.on(request(app).post(`/auth/${provider}/link`)));
}

async function whoIs(app: Express, jar: CookieJar): Promise<{ status: number; id?: string }> {
  const res = await jar.on(request(app).get('/private'));
  return { status: res.status, id: (res.body as { id?: string }).id };
}

describeOnEveryAccountStore('linked logins', (ctx) => {
  // Closed after each test, also when it failed (the dev server would keep jest waiting).
  const opened: LinkApp[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((t) => t.close()));
  });
  const linkApp = async (options: Partial<AccountRouterOptions> = {}): Promise<LinkApp> => {
    const t = await makeLinkApp(ctx, options);
    opened.push(t);
    return t;
  };

  it("a link left at the provider's page does not catch whoever logs in next in this browser", async () => {
    const t = await linkApp();
    await activeUser(t.app, ctx.peer, 'olive@example.com', 'olive-password');
    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'olive@example.com', 'olive-password');
    expect((await startLink(t.app, browser, 'dev')).status).toBe(200);
    // The owner goes to the provider's page (its handshake takes the session cookie's place) and leaves it there.
    browser.keep(await browser.on(request(t.app).get('/auth/dev/login')).expect(302));
    expect(browser.get('LINK-TOKEN')).toBeDefined();
    // Someone else, later, in the same browser: a login of their own.
    const next = await devLogin(t.app, browser, 'passer-by');
    expect(next.body).toMatchObject({ id: hashId('dev', 'passer-by') });
    expect(browser.get('LINK-TOKEN')).toBeUndefined();
    expect(await t.accounts.store.accountOfLogin(hashId('dev', 'passer-by'))).toBeUndefined();
  });

  it('links an OAuth2 login to the account: later logins with it are the account, its own sessions end, the list shows it', async () => {
    const t = await linkApp();
    const { id, token } = await activeUser(t.app, ctx.peer, 'alice@example.com', 'alice-password');
    const standalone = new CookieJar();
    expect((await devLogin(t.app, standalone, 'alice-gh')).status).toBe(200);
    expect(await whoIs(t.app, standalone)).toEqual({ status: 200, id: hashId('dev', 'alice-gh') });

    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'alice@example.com', 'alice-password');
    const startedWith = browser.get('JWT');
    const started = await startLink(t.app, browser, 'dev');
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'linking', provider: 'dev' });
    expect(setCookies(started)['LINK-TOKEN']?.attrs.httponly).toBe(true);
    const linked = await devLogin(t.app, browser, 'alice-gh');
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ id: await accountUserId(t, 'alice@example.com'), name: 'alice@example.com' });
    expect(browser.get('LINK-TOKEN')).toBeUndefined();
    expect(await whoIs(t.app, browser)).toEqual({ status: 200, id: await accountUserId(t, 'alice@example.com') });
    // The session that started the link was replaced; the login's own session ended.
    const replaced = new CookieJar();
    replaced.set('JWT', startedWith ?? '');
    expect((await whoIs(t.app, replaced)).status).toBe(401);
    expect((await whoIs(t.app, standalone)).status).toBe(401);

    const elsewhere = new CookieJar();
    expect((await devLogin(t.app, elsewhere, 'alice-gh')).body).toMatchObject({ id: await accountUserId(t, 'alice@example.com'), name: 'alice@example.com' });
    expect(await whoIs(t.app, elsewhere)).toEqual({ status: 200, id: await accountUserId(t, 'alice@example.com') });
    expect((await t.auth.sessions.list(await accountUserId(t, 'alice@example.com'))).map((s) => s.provider).sort()).toEqual(['accounts', 'dev']);
    expect(await t.accounts.store.accountOfLogin(hashId('dev', 'alice-gh'))).toBe(id);
    const other = new CookieJar();
    expect((await devLogin(t.app, other, 'bob-gh')).body).toMatchObject({ id: hashId('dev', 'bob-gh') });

    const list = await request(t.app)
      .get(`/account/profile/${id}/logins`)
      .set(...bearer(token))
      .expect(200);
    expect(list.body.Items).toEqual([
      expect.objectContaining({ Provider: 'accounts', UserId: await accountUserId(t, 'alice@example.com'), Name: 'alice@example.com', Primary: true }),
      expect.objectContaining({ Provider: 'dev', UserId: hashId('dev', 'alice-gh'), Name: 'alice-gh', Primary: false }),
    ]);
  });

  it('links a direct login and an e-mail login; a mailed link opened from another site does not link', async () => {
    const t = await linkApp();
    const { id } = await activeUser(t.app, ctx.peer, 'carol@example.com', 'carol-password');
    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'carol@example.com', 'carol-password');
    expect((await startLink(t.app, browser, 'local')).status).toBe(200);
    const direct = browser.keep(await browser.on(request(t.app).post('/auth/local/login')).send({ user: 'carol-local', passwd: 'pw' }));
    expect(direct.body).toMatchObject({ id: await accountUserId(t, 'carol@example.com') });

    const mailLink = async (): Promise<string> => {
      const since = ctx.peer.mails.length;
      await browser.on(request(t.app).get('/auth/email/login').query({ user: 'carol', address: 'carol.mail@example.com' })).expect(200);
      const mail = await mailTo(ctx.peer, 'carol.mail@example.com', since);
      const url = new URL(/(http:\/\/\S+)/.exec(mail.body)?.[1] ?? '');
      return url.pathname + url.search;
    };
    expect((await startLink(t.app, browser, 'email')).status).toBe(200);
    const fromWebmail = await browser.on(request(t.app).get(await mailLink())).set('Sec-Fetch-Site', 'cross-site');
    browser.keep(fromWebmail);
    // Opened from another site, the link only asks (a page whose button posts it back); nothing is linked yet.
    expect(fromWebmail.status).toBe(200);
    expect(fromWebmail.text).toContain('Sign in as carol (carol.mail@example.com)?');
    expect(await t.accounts.store.accountOfLogin(hashId('email', 'carol.mail@example.com'))).toBeUndefined();
    expect((await startLink(t.app, browser, 'email')).status).toBe(200);
    const pasted = browser.keep(await browser.on(request(t.app).get(await mailLink())).set('Sec-Fetch-Site', 'none'));
    expect(pasted.status).toBe(200);
    expect(await t.accounts.store.accountOfLogin(hashId('email', 'carol.mail@example.com'))).toBe(id);
    expect((await t.accounts.store.loginsOf(id)).map((l) => l.Provider)).toEqual(['local', 'email']);
    const fresh = new CookieJar();
    const again = fresh.keep(await request(t.app).post('/auth/local/login').send({ user: 'carol-local', passwd: 'pw' }).expect(200));
    expect(again.body).toMatchObject({ id: await accountUserId(t, 'carol@example.com'), name: 'carol@example.com' });
  });

  it('refuses links it must not make, with a 4xx JSON error and nothing linked', async () => {
    const t = await linkApp({ maxLinkedLogins: 1 });
    const dave = await activeUser(t.app, ctx.peer, 'dave@example.com', 'dave-password');
    await activeUser(t.app, ctx.peer, 'erin@example.com', 'erin-password');
    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'dave@example.com', 'dave-password');

    await request(t.app).post('/auth/dev/link').expect(401);
    const noXsrf = await request(t.app)
      .post('/auth/dev/link')
      .set('Cookie', `JWT=${browser.get('JWT')}`)
      .expect(401);
    expect(noXsrf.body.error).toBeDefined();
    const crossSite = await browser.on(request(t.app).post('/auth/dev/link')).set('Origin', 'https://evil.example');
    expect(crossSite.status).toBe(403);
    const get = await browser.on(request(t.app).get('/auth/dev/link')).expect(405);
    expect(get.headers.allow).toBe('POST, DELETE');
    // A started link can be dropped (the screen does it after a wrong password): the cookie goes.
    const dropped = await browser.on(request(t.app).delete('/auth/dev/link')).expect(200);
    expect(dropped.body).toEqual({ status: 'cancelled' });
    expect(String(dropped.headers['set-cookie'])).toMatch(/LINK-TOKEN=;/);
    // Without a session it drops nothing of anyone's: it only clears this browser's cookie.
    expect((await request(t.app).delete('/auth/dev/link').expect(200)).body).toEqual({ status: 'cancelled' });
    await browser.on(request(t.app).post('/auth/nope/link')).expect(404);
    expect((await startLink(t.app, browser, 'accounts')).status).toBe(409);
    expect(browser.get('LINK-TOKEN')).toBeUndefined();

    // A user who is no account cannot link.
    const plain = new CookieJar();
    plain.keep(await request(t.app).post('/auth/local/login').send({ user: 'someone', passwd: 'pw' }).expect(200));
    expect((await startLink(t.app, plain, 'dev')).status).toBe(403);

    // A login linked to another account stays there.
    const erin = new CookieJar();
    await accountLogin(t.app, erin, 'erin@example.com', 'erin-password');
    await startLink(t.app, erin, 'dev');
    expect((await devLogin(t.app, erin, 'shared-gh')).status).toBe(200);
    await startLink(t.app, browser, 'dev');
    const taken = await devLogin(t.app, browser, 'shared-gh');
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatch(/linked to another account/);
    expect(await t.accounts.store.accountOfLogin(hashId('dev', 'shared-gh'))).not.toBe(dave.id);
    // The OAuth2 handshake took the session cookie's place: a refused link ends like a failed login.
    expect((await startLink(t.app, browser, 'dev')).status).toBe(401);
    await accountLogin(t.app, browser, 'dave@example.com', 'dave-password');

    // The limit (1 here).
    expect((await startLink(t.app, browser, 'dev')).status).toBe(200);
    expect((await devLogin(t.app, browser, 'dave-gh')).status).toBe(200);
    expect((await startLink(t.app, browser, 'local')).status).toBe(200);
    const full = browser.keep(await browser.on(request(t.app).post('/auth/local/login')).send({ user: 'dave-local', passwd: 'pw' }));
    expect(full.status).toBe(409);
    expect(await t.accounts.store.loginsOf(dave.id)).toHaveLength(1);

    // The session that started the link ended before the login: refused, not linked.
    await accountLogin(t.app, browser, 'dave@example.com', 'dave-password');
    await startLink(t.app, browser, 'local');
    const intent = browser.get('LINK-TOKEN') ?? '';
    await browser.on(request(t.app).post('/auth/logout')).expect(200);
    browser.set('LINK-TOKEN', intent);
    const ended = browser.keep(await browser.on(request(t.app).post('/auth/local/login')).send({ user: 'late-local', passwd: 'pw' }));
    expect(ended.status).toBe(401);
    expect(await t.accounts.store.accountOfLogin(hashId('local', 'late-local'))).toBeUndefined();

    // A forged intent (another secret) is no intent: the login is its own.
    const forged = new CookieJar();
    const other = createAuth({ url: 'http://127.0.0.1:8080', secret: 'another-secret-0123456789abcdef-01' });
    const token = await other.tokens.signShortLived(
      { aud: 'authgate', handshake: { id: 'link:local' }, link: { via: 'accounts', owner: { id: await accountUserId(t, 'dave@example.com'), name: 'dave@example.com' }, session: 's1.x' } },
      60_000,
    );
    await other.close();
    forged.set('LINK-TOKEN', token);
    const own = await forged.on(request(t.app).post('/auth/local/login')).send({ user: 'mallory', passwd: 'pw' }).expect(200);
    expect(own.body.id).toBe(hashId('local', 'mallory'));
    expect(await t.accounts.store.loginsOf(dave.id)).toHaveLength(1);
  });

  it('of two accounts racing to link one login, exactly one gets it', async () => {
    const t = await linkApp();
    const jars = await Promise.all(
      ['judy', 'kim'].map(async (name) => {
        await activeUser(t.app, ctx.peer, `${name}@example.com`, `${name}-password`);
        const jar = new CookieJar();
        await accountLogin(t.app, jar, `${name}@example.com`, `${name}-password`);
        expect((await startLink(t.app, jar, 'local')).status).toBe(200);
        return jar;
      }),
    );
    const answers = await Promise.all(jars.map((jar) => jar.on(request(t.app).post('/auth/local/login')).send({ user: 'contested', passwd: 'pw' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.id as string;
    const owner = await t.accounts.store.accountOfLogin(hashId('local', 'contested'));
    expect(hashId('accounts', owner!)).toBe(winner);
  });

  it('a replayed intent links nothing more: the session that started it was replaced', async () => {
    const t = await linkApp();
    const { id } = await activeUser(t.app, ctx.peer, 'frank@example.com', 'frank-password');
    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'frank@example.com', 'frank-password');
    await startLink(t.app, browser, 'local');
    const intent = browser.get('LINK-TOKEN') ?? '';
    const jwt = browser.get('JWT') ?? '';
    await browser.on(request(t.app).post('/auth/local/login')).send({ user: 'frank-local', passwd: 'pw' }).expect(200);
    const replay = new CookieJar();
    replay.set('JWT', jwt);
    replay.set('LINK-TOKEN', intent);
    const res = await replay.on(request(t.app).post('/auth/local/login')).send({ user: 'intruder', passwd: 'pw' });
    expect(res.status).toBe(401);
    expect((await t.accounts.store.loginsOf(id)).map((l) => l.UserId)).toEqual([hashId('local', 'frank-local')]);
  });

  it('unlinks: the account login stays, the last way in stays, sessions of that provider end; a manager may unlink', async () => {
    const t = await linkApp({ managers: ['boss@example.com'] });
    const grace = await activeUser(t.app, ctx.peer, 'grace@example.com', 'grace-password');
    const boss = await activeUser(t.app, ctx.peer, 'boss@example.com', 'boss-password');
    const other = await activeUser(t.app, ctx.peer, 'heidi@example.com', 'heidi-password');
    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'grace@example.com', 'grace-password');
    await startLink(t.app, browser, 'dev');
    expect((await devLogin(t.app, browser, 'grace-gh')).status).toBe(200);
    await startLink(t.app, browser, 'local');
    await browser.on(request(t.app).post('/auth/local/login')).send({ user: 'grace-local', passwd: 'pw' }).expect(200);
    const viaDev = new CookieJar();
    await devLogin(t.app, viaDev, 'grace-gh');
    const viaAccount = new CookieJar();
    await accountLogin(t.app, viaAccount, 'grace@example.com', 'grace-password');
    const path = (userId: string): string => `/account/profile/${grace.id}/logins/${encodeURIComponent(userId)}`;

    const own = await request(t.app)
      .delete(path(await accountUserId(t, 'grace@example.com')))
      .set(...bearer(grace.token))
      .expect(409);
    expect(own.body.Code).toBe(2.2);
    const unknown = await request(t.app)
      .delete(path('dev_unknown'))
      .set(...bearer(grace.token))
      .expect(404);
    expect(unknown.body.Code).toBe(2.1);
    await request(t.app)
      .delete(path('x'.repeat(600)))
      .set(...bearer(grace.token))
      .expect(400);
    await request(t.app)
      .delete(path(hashId('dev', 'grace-gh')))
      .expect(401);
    await request(t.app)
      .delete(path(hashId('dev', 'grace-gh')))
      .set(...bearer(other.token))
      .expect(403);
    await request(t.app)
      .get(`/account/profile/${grace.id}/logins`)
      .set(...bearer(other.token))
      .expect(403);
    expect(await t.accounts.store.loginsOf(grace.id)).toHaveLength(2);

    const done = await request(t.app)
      .delete(path(hashId('dev', 'grace-gh')))
      .set(...bearer(grace.token))
      .expect(200);
    expect(done.body.Message).toMatch(/unlinked/);
    expect((await whoIs(t.app, viaDev)).status).toBe(401);
    expect(await whoIs(t.app, viaAccount)).toEqual({ status: 200, id: await accountUserId(t, 'grace@example.com') });
    const afterwards = new CookieJar();
    expect((await devLogin(t.app, afterwards, 'grace-gh')).body.id).toBe(hashId('dev', 'grace-gh'));

    const byManager = await request(t.app)
      .get(`/account/profile/${grace.id}/logins`)
      .set(...bearer(boss.token))
      .expect(200);
    expect(byManager.body.Items.map((l: { Provider: string }) => l.Provider)).toEqual(['accounts', 'local']);
    await request(t.app)
      .delete(path(hashId('local', 'grace-local')))
      .set(...bearer(boss.token))
      .expect(200);
    expect(await t.accounts.store.loginsOf(grace.id)).toEqual([]);
  });

  it('links follow the account: a new e-mail moves them along, a deleted account frees them', async () => {
    const t = await linkApp();
    const ivan = await activeUser(t.app, ctx.peer, 'ivan@example.com', 'ivan-password');
    const browser = new CookieJar();
    await accountLogin(t.app, browser, 'ivan@example.com', 'ivan-password');
    await startLink(t.app, browser, 'dev');
    expect((await devLogin(t.app, browser, 'ivan-gh')).status).toBe(200);

    const since = ctx.peer.mails.length;
    await request(t.app)
      .post(`/account/profile/${ivan.id}/email`)
      .set(...bearer(ivan.token))
      .send({ NewEmail: 'ivan.new@example.com', Pwd: 'ivan-password' })
      .expect(202);
    const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(ctx.peer, 'ivan.new@example.com', since)).body)?.[1];
    await request(t.app)
      .post(`/account/profile/${ivan.id}/email/confirm`)
      .set(...bearer(ivan.token))
      .send({ Code: code })
      .expect(200);
    const moved = new CookieJar();
    expect((await devLogin(t.app, moved, 'ivan-gh')).body).toMatchObject({ id: await accountUserId(t, 'ivan.new@example.com'), name: 'ivan.new@example.com' });

    await request(t.app)
      .delete(`/account/profile/${ivan.id}`)
      .set(...bearer(ivan.token))
      .send({ Pwd: 'ivan-password' })
      .expect(200);
    expect((await whoIs(t.app, moved)).status).toBe(401);
    expect(await t.accounts.store.accountOfLogin(hashId('dev', 'ivan-gh'))).toBeUndefined();
    const alone = new CookieJar();
    expect((await devLogin(t.app, alone, 'ivan-gh')).body.id).toBe(hashId('dev', 'ivan-gh'));
  });
});

describe('linked logins set-up', () => {
  it('loginLinks() needs loginSessions; useLoginLinks refuses what is no links object; linking without links is 404', async () => {
    const { accounts } = makeAccountApp({ port: 1 } as AccountFlowContext['peer']);
    expect(() => accounts.loginLinks()).toThrow(/loginSessions/);
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    expect(() => auth.useLoginLinks({} as never)).toThrow(/resolve\(\), check\(\) and link\(\)/);
    auth.addDirectProvider('local', (_u, p) => p === 'pw');
    const app = express();
    app.use('/auth', auth.handlers().authRouter);
    const jar = new CookieJar();
    jar.keep(await request(app).post('/auth/local/login').send({ user: 'u', passwd: 'pw' }).expect(200));
    const res = await jar.on(request(app).post('/auth/local/link')).expect(404);
    expect(res.body.error).toMatch(/useLoginLinks/);
    await auth.close();
    await accounts.close();
  });
});
