import request from 'supertest';
import { setCookies } from '../support/cookies';
import { makeApp, type TestApp } from '../support/auth-app';
import { callback, startLogin } from '../support/oauth-flow';
import { Navigator, startIdpApp, type IdpApp } from './idp-helpers';

const RP = 'http://127.0.0.1:8080';
const RP_SECRET = 'second-app-client-secret-0123456789abcdef';

describe("single sign-on: a second Express app logs in with authgate's addOidcProvider against the first app's identity provider", () => {
  let idp: IdpApp;
  let rp: TestApp;

  beforeAll(async () => {
    idp = await startIdpApp({
      clients: [{ clientId: 'wiki', name: 'Team Wiki', clientSecret: RP_SECRET, redirectUris: [`${RP}/auth/company/callback`], postLogoutRedirectUris: [`${RP}/bye`], trusted: true }],
    });
    rp = makeApp({ url: RP }, (auth) => {
      auth.addOidcProvider('company', { issuer: idp.issuer, clientId: 'wiki', clientSecret: RP_SECRET, postLogoutRedirectUri: `${RP}/bye` });
    });
  });
  afterAll(async () => {
    await rp?.auth.close();
    await idp?.close();
  });

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
