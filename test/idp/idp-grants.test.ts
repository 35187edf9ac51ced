import * as client from 'openid-client';
import request from 'supertest';
import { hashId, senderFunc } from '../../src';
import { accounts } from '../../src/accounts';
import { admin } from '../../src/admin';
import { organizations } from '../../src/organizations';
import { scim } from '../../src/plugins/scim';
import { rootIsAdmin } from '../admin/admin-helpers';
import { setClock } from '../support/clock';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

const SECRET = 'wiki-client-secret-0123456789abcdef0123';

/**
 * A grant that yields a refresh token is a credential (issue 41, item 1): a stale stolen cookie
 * cannot make one, and the owner's recovery, "end all sessions", a ban and the end of the session
 * that made it take it back, with its tokens.
 */
describe('identity-provider grants follow the credential policy', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  let callback: string;
  const mails: Array<{ to: string; text: string }> = [];
  const accountService = accounts({
    store: 'memory://',
    sender: senderFunc((to, text) => void mails.push({ to, text })),
    baseUrl: 'http://127.0.0.1/account',
    bcryptRounds: 4,
  });

  beforeAll(async () => {
    rp = await nowhere();
    callback = `${rp.url}/callback`;
    idp = await startIdpApp(
      {
        clients: [
          { clientId: 'wiki', name: 'Team Wiki', clientSecret: SECRET, redirectUris: [callback], trusted: true },
          { clientId: 'phone', name: 'Phone App', redirectUris: [callback], applicationType: 'native' },
          { clientId: 'cli', name: 'Team CLI', redirectUris: ['http://127.0.0.1/cb'], applicationType: 'native', deviceFlow: true, trusted: true },
        ],
      },
      {
        // Organizations and SCIM: a directory's deprovisioning (org.member.deprovisioned) takes the grants too.
        plugins: [accountService, admin(), organizations({ sender: senderFunc(() => undefined) }), scim()],
        claimsUpdater: rootIsAdmin,
      },
    );
    idp.app.use('/account', accountService.router);
  });
  afterAll(async () => {
    jest.useRealTimers();
    await idp?.close();
    await rp?.close();
  });

  const loginPage = (): string => `${idp.url}/?`;
  const discover = (clientId: string, secret?: string): Promise<client.Configuration> =>
    client.discovery(new URL(idp.issuer), clientId, secret, secret ? client.ClientSecretBasic(secret) : client.None(), { execute: [client.allowInsecureRequests] });

  /** The code flow of the trusted wiki with offline access, to the end: its tokens. */
  async function wikiTokens(browser: Navigator): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
    const wiki = await discover('wiki', SECRET);
    const ended = await authorizeIn(browser, wiki, callback, { scope: 'openid profile offline_access', prompt: 'consent' }, [loginPage()]);
    expect(ended.url?.href.startsWith(callback)).toBe(true);
    const tokens = await client.authorizationCodeGrant(wiki, ended.url as URL, { pkceCodeVerifier: ended.verifier });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    return tokens;
  }

  /** Whether the wiki's refresh token and access token still work, as the wiki and a resource server see them. */
  async function stillWorks(tokens: client.TokenEndpointResponse): Promise<{ refresh: boolean; active: boolean }> {
    const wiki = await discover('wiki', SECRET);
    const introspected = await client.tokenIntrospection(wiki, tokens.access_token);
    const refresh = await client.refreshTokenGrant(wiki, tokens.refresh_token as string).then(
      () => true,
      (err: { error?: string }) => {
        expect(err.error).toBe('invalid_grant');
        return false;
      },
    );
    return { refresh, active: introspected.active };
  }

  const xsrfPost = (browser: Navigator, path: string): Promise<Response> =>
    browser.fetch(`${idp.url}${path}`, { method: 'POST', headers: { 'x-xsrf-token': browser.cookies.get('XSRF-TOKEN') ?? '' } });

  it('a 20-minute-old session is sent to log in again before offline access or the device flow; a fresh login gets them', async () => {
    const browser = await new Navigator().login(idp, 'vera');
    const start = Math.floor(Date.now() / 1000);
    setClock(start + 20 * 60);
    try {
      // The public app with offline_access: the login page with fresh=1, no consent page, no code.
      const phone = await discover('phone');
      const stale = await authorizeIn(browser, phone, callback, { scope: 'openid offline_access', prompt: 'consent' }, [loginPage()]);
      expect(stale.url?.href.startsWith(loginPage())).toBe(true);
      expect(stale.url?.searchParams.get('fresh')).toBe('1');
      // The trusted app likewise.
      const wiki = await discover('wiki', SECRET);
      const trusted = await authorizeIn(browser, wiki, callback, { scope: 'openid offline_access', prompt: 'consent' }, [loginPage()]);
      expect(trusted.url?.searchParams.get('fresh')).toBe('1');
      // Without offline access the same session still signs in to the app: nothing outlives it.
      const short = await authorizeIn(browser, wiki, callback, { scope: 'openid' }, [loginPage()]);
      expect(short.url?.href.startsWith(callback)).toBe(true);
      expect((await client.authorizationCodeGrant(wiki, short.url as URL, { pkceCodeVerifier: short.verifier })).refresh_token).toBeUndefined();

      // The device flow: the code is entered, then the browser is sent to log in again.
      const cli = await client.discovery(new URL(idp.issuer), 'cli', undefined, client.None(), { execute: [client.allowInsecureRequests] });
      const device = await client.initiateDeviceAuthorization(cli, { scope: 'openid offline_access' });
      const confirmed = await enterUserCode(browser, device.verification_uri, device.user_code);
      expect(confirmed.url?.searchParams.get('fresh')).toBe('1');

      // The owner logs in again (this test's browser keeps one cookie per name, so it asks anew): both complete, with a refresh token.
      await browser.login(idp, 'vera');
      const fresh = await authorizeIn(browser, wiki, callback, { scope: 'openid offline_access', prompt: 'consent' }, [loginPage()]);
      expect((await client.authorizationCodeGrant(wiki, fresh.url as URL, { pkceCodeVerifier: fresh.verifier })).refresh_token).toEqual(expect.any(String));
      const again = await client.initiateDeviceAuthorization(cli, { scope: 'openid offline_access' });
      expect((await enterUserCode(browser, again.verification_uri, again.user_code)).page?.status).toBe(200);
      expect((await client.pollDeviceAuthorizationGrant(cli, { ...again, interval: 0 })).refresh_token).toEqual(expect.any(String));
    } finally {
      jest.useRealTimers();
    }
  });

  it('a consent page left open past the step-up window does not grant offline access when Allow is pressed', async () => {
    const browser = await new Navigator().login(idp, 'wanda');
    const phone = await discover('phone');
    const shown = await authorizeIn(browser, phone, callback, { scope: 'openid offline_access', prompt: 'consent' }, [loginPage()]);
    const html = await (shown.page as Response).text();
    expect(html).toContain('Phone App wants to');
    const action = /action="([^"]+)"/.exec(html)?.[1] as string;
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;
    setClock(Math.floor(Date.now() / 1000) + 11 * 60);
    try {
      const pressed = await browser.follow(`${idp.url}${action}`, [callback, loginPage()], { method: 'POST', form: { csrf, decision: 'allow' } });
      expect(pressed.url?.href.startsWith(loginPage())).toBe(true);
      expect(pressed.url?.searchParams.get('fresh')).toBe('1');
    } finally {
      jest.useRealTimers();
    }
  });

  it('ending the session that made a grant ends the grant; "end all sessions" ends those of the other sessions only', async () => {
    const thief = await new Navigator().login(idp, 'xena');
    const owner = await new Navigator().login(idp, 'xena');
    const stolen = await wikiTokens(thief);
    const own = await wikiTokens(owner);
    expect(await stillWorks(stolen)).toEqual({ refresh: true, active: true });

    expect((await xsrfPost(owner, '/auth/sessions/revoke-others')).status).toBe(200);
    expect(await stillWorks(stolen)).toEqual({ refresh: false, active: false });
    const ownNow = await stillWorks(own);
    expect(ownNow.refresh).toBe(true);

    // The owner logs out: the grants of that session go too.
    const later = await wikiTokens(owner);
    expect((await owner.fetch(`${idp.url}/auth/logout`)).status).toBe(200);
    expect(await stillWorks(later)).toEqual({ refresh: false, active: false });
    expect(
      (
        await request(idp.app)
          .get('/auth/apps')
          .set('Cookie', `JWT=${owner.cookies.get('JWT') ?? ''}`)
      ).status,
    ).toBe(401);
  });

  it('a password reset removes every app of the account, and the notice names them; the stolen refresh token stops', async () => {
    const email = 'yara@example.com';
    await request(idp.app).post('/account/signup').send({ Email: email, Pwd: 'correct horse', PwdRepeat: 'correct horse' }).expect(202);
    const activation = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? '')?.[1] ?? '');
    await request(idp.app)
      .get(`/account${activation.pathname.replace(/^\/account/, '')}${activation.search}`)
      .expect(200);
    const thief = new Navigator();
    const login = await thief.fetch(`${idp.url}/auth/accounts/login`, { method: 'POST', form: { user: email, passwd: 'correct horse' } });
    expect(login.status).toBe(200);
    const stolen = await wikiTokens(thief);
    const userinfo = await client.fetchUserInfo(await discover('wiki', SECRET), stolen.access_token, client.skipSubjectCheck);
    expect(userinfo.name).toBe(email);

    await request(idp.app).post('/account/password/forgot').send({ Email: email }).expect(202);
    const code = /\b([0-9a-f]{32})\b/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? '')?.[1] as string;
    await request(idp.app).post('/account/password/reset').send({ Email: email, Code: code, NewPwd: 'battery staple', NewPwdRepeat: 'battery staple' }).expect(200);

    expect(await stillWorks(stolen)).toEqual({ refresh: false, active: false });
    await expect(client.fetchUserInfo(await discover('wiki', SECRET), stolen.access_token, client.skipSubjectCheck)).rejects.toBeDefined();
    const notice = mails.filter((m) => m.to === email).at(-1)?.text ?? '';
    expect(notice).toContain('the access of 1 app (Team Wiki)');
  });

  it("an organization's directory deprovisioning the user takes its grants away (the SCIM plugin's event)", async () => {
    const yves = await new Navigator().login(idp, 'yves');
    const tokens = await wikiTokens(yves);
    expect((await client.tokenIntrospection(await discover('wiki', SECRET), tokens.access_token)).active).toBe(true);
    idp.auth.events.emit({ type: 'org.member.deprovisioned', userId: hashId('local', 'yves'), actor: { kind: 'system' }, data: { org: 'org_directory', source: 'scim', reason: 'suspended' } });
    await idp.auth.events.flush();
    expect(await stillWorks(tokens)).toEqual({ refresh: false, active: false });
  });

  it('a ban stops the tokens at once (introspection inactive, userinfo refused) and takes the grants away', async () => {
    const root = await new Navigator().login(idp, 'root');
    const zed = await new Navigator().login(idp, 'zed');
    const tokens = await wikiTokens(zed);
    const banned = await root.fetch(`${idp.url}/auth/admin/users/${hashId('local', 'zed')}/ban`, {
      method: 'POST',
      headers: { 'x-xsrf-token': root.cookies.get('XSRF-TOKEN') ?? '' },
      json: { reason: 'abuse' },
    });
    expect(banned.status).toBe(200);
    expect(await stillWorks(tokens)).toEqual({ refresh: false, active: false });
    await expect(client.fetchUserInfo(await discover('wiki', SECRET), tokens.access_token, client.skipSubjectCheck)).rejects.toBeDefined();
  });
});

/** Enters a device flow's user code in a signed-in browser and confirms it; where the browser ends up (a URL or a page). */
export async function enterUserCode(browser: Navigator, verificationUri: string, userCode: string): Promise<{ url?: URL; page?: Response }> {
  const html = await (await browser.fetch(verificationUri)).text();
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
  const entered = await browser.follow(verificationUri, 'https://never', { method: 'POST', form: { xsrf, user_code: userCode } });
  const confirm = await (entered.page as Response).text();
  const confirmXsrf = /name="xsrf" value="([^"]+)"/.exec(confirm)?.[1] as string;
  const origin = new URL(verificationUri).origin;
  return browser.follow(new URL(/action="([^"]+)"/.exec(confirm)?.[1] as string, origin).href, `${origin}/?`, { method: 'POST', form: { xsrf: confirmXsrf, confirm: 'yes', user_code: userCode } });
}
