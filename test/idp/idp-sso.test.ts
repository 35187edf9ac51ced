import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import request from 'supertest';
import { eventually } from '../support/eventually';
import { setCookies } from '../support/cookies';
import { makeApp, type TestApp } from '../support/auth-app';
import { callback, startLogin } from '../support/oauth-flow';
import { Navigator, startIdpApp, type IdpApp } from './idp-helpers';

const RP = 'http://127.0.0.1:8080';
const RP_SECRET = 'second-app-client-secret-0123456789abcdef';

describe("single sign-on: a second Express app logs in with authgate's addOidcProvider against the first app's identity provider", () => {
  let idp: IdpApp;
  let rp: TestApp;
  let backChannel: { url: string; tokens: string[]; close(): Promise<void> };

  beforeAll(async () => {
    backChannel = await logoutReceiver();
    idp = await startIdpApp({
      clients: [
        {
          clientId: 'wiki',
          name: 'Team Wiki',
          clientSecret: RP_SECRET,
          redirectUris: [`${RP}/auth/company/callback`],
          postLogoutRedirectUris: [`${RP}/bye`],
          backchannelLogoutUri: `${backChannel.url}/backchannel-logout`,
          trusted: true,
        },
      ],
    });
    rp = makeApp({ url: RP }, (auth) => {
      auth.addOidcProvider('company', { issuer: idp.issuer, clientId: 'wiki', clientSecret: RP_SECRET, postLogoutRedirectUri: `${RP}/bye` });
    });
  });
  afterAll(async () => {
    await rp?.auth.close();
    await idp?.close();
    await backChannel?.close();
  });

  /** Signs `name` in to the first app, then into the second through it; the browser and the second app's session token. */
  async function signedInBoth(name: string): Promise<{ browser: Navigator; session: string }> {
    const browser = await new Navigator().login(idp, name);
    const { location, handshake } = await startLogin(rp.app, 'company', '?from=/home');
    const back = await browser.follow(location.href, `${RP}/auth/company/callback`);
    const done = await callback(rp.app, back.url as URL, handshake);
    return { browser, session: setCookies(done).JWT?.value as string };
  }

  /** Whether the browser's authgate session at the first app is still good. */
  const signedIn = async (browser: Navigator): Promise<boolean> => {
    const res = await request(idp.app)
      .get('/auth/user')
      .set('Cookie', `JWT=${browser.cookies.get('JWT') ?? ''}`)
      .set('X-XSRF-TOKEN', browser.cookies.get('XSRF-TOKEN') ?? '');
    return res.status === 200;
  };

  it('a user signed in to the first app gets into the second without a password; the second app sees the same name', async () => {
    const browser = await new Navigator().login(idp, 'alice');
    const { location, handshake } = await startLogin(rp.app, 'company', '?from=/home');
    expect(location.href.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    const back = await browser.follow(location.href, `${RP}/auth/company/callback`);
    expect(back.url?.searchParams.get('iss')).toBe(idp.issuer);
    const done = await callback(rp.app, back.url as URL, handshake);
    expect([done.status, done.headers.location]).toEqual([303, '/home']);
    const session = setCookies(done).JWT?.value as string;
    const me = await request(rp.app).get('/private').set('X-JWT', session).expect(200);
    expect(me.body).toMatchObject({ name: 'alice' });
    expect(me.body.id).toMatch(/^company_/);
  });

  it("logging out of the first app ends its identity provider session: the second app is told by back channel, with the session's sid", async () => {
    const { browser } = await signedInBoth('carol');
    const before = backChannel.tokens.length;
    await browser.fetch(`${idp.url}/auth/logout`, { headers: { 'x-xsrf-token': browser.cookies.get('XSRF-TOKEN') ?? '' } });
    await eventually(async () => expect(backChannel.tokens.length).toBe(before + 1));
    const token = decodeJwt(backChannel.tokens.at(-1) as string);
    expect(token).toMatchObject({ iss: idp.issuer, aud: 'wiki', events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
    expect(token.sid).toEqual(expect.any(String));
    expect(token.sub).toMatch(/^local_/);
    // The provider session is gone: a silent request needs a login now.
    const { location } = await startLogin(rp.app, 'company');
    location.searchParams.set('prompt', 'none');
    const silent = await browser.follow(location.href, `${RP}/auth/company/callback`);
    expect(silent.url?.searchParams.get('error')).toBe('login_required');
  });

  it("logging out of the second app (RP-initiated) ends the user's session at the first app too, after the user confirms", async () => {
    const { browser, session } = await signedInBoth('dave');
    expect(await signedIn(browser)).toBe(true);
    const out = await request(rp.app).get('/auth/company/logout').set('Cookie', `JWT=${session}`);
    const endSession = out.headers.location as string;
    expect(endSession.startsWith(`${idp.issuer}/session/end`)).toBe(true);
    const confirm = await browser.follow(endSession, `${RP}/bye`);
    const page = await (confirm.page as Response).text();
    expect(page).toContain('Sign out of the apps that use this login?');
    const action = /action="([^"]+)"/.exec(page)?.[1] as string;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1] as string;
    const done = await browser.follow(new URL(action, idp.url).href, `${RP}/bye`, { method: 'POST', form: { xsrf, logout: 'yes' } });
    expect(done.url?.href).toBe(`${RP}/bye`);
    await eventually(async () => expect(await signedIn(browser)).toBe(false));
  });

  it('a user not signed in to the first app is sent to its login page and then on to the second app', async () => {
    const browser = new Navigator();
    const { location, handshake } = await startLogin(rp.app, 'company');
    const toLogin = await browser.follow(location.href, [`${idp.url}/?`, `${RP}/`]);
    expect(toLogin.url?.origin).toBe(idp.url);
    await browser.login(idp, 'bob');
    const back = await browser.follow(toLogin.url?.searchParams.get('return_to') as string, `${RP}/auth/company/callback`);
    const done = await callback(rp.app, back.url as URL, handshake);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ name: 'bob' });
  });
});

/** A relying party's back-channel logout endpoint: keeps the logout tokens it is sent. */
async function logoutReceiver(): Promise<{ url: string; tokens: string[]; close(): Promise<void> }> {
  const tokens: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (token !== null) tokens.push(token);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tokens, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
