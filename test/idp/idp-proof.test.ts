import * as client from 'openid-client';
import request from 'supertest';
import { CookieJar } from '../support/cookie-jar';
import { awayFromStepEdge, codeNow as code } from '../support/totp-code';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

const SECRET_OF_WEB = 'web-app-client-secret-0123456789abcdef';

describe('the id_token says how the login proved the user (amr, acr)', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    rp = await nowhere();
    idp = await startIdpApp(
      { clients: [{ clientId: 'web', clientSecret: SECRET_OF_WEB, redirectUris: [`${rp.url}/cb`], trusted: true }] },
      { twoFactor: { key: 'idp-two-factor-key-0123456789abcdef' } },
    );
  });
  afterAll(async () => {
    await idp?.close();
    await rp?.close();
  });

  async function idTokenOf(browser: Navigator): Promise<Record<string, unknown>> {
    const config = await client.discovery(new URL(idp.issuer), 'web', SECRET_OF_WEB, client.ClientSecretBasic(SECRET_OF_WEB), { execute: [client.allowInsecureRequests] });
    expect(config.serverMetadata().acr_values_supported).toEqual(['urn:authgate:acr:1fa', 'urn:authgate:acr:2fa']);
    const ended = await authorizeIn(browser, config, `${rp.url}/cb`);
    return (await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier })).claims() as Record<string, unknown>;
  }

  it('a password login: amr pwd, one factor', async () => {
    expect(await idTokenOf(await new Navigator().login(idp, 'olga'))).toMatchObject({ amr: ['pwd'], acr: 'urn:authgate:acr:1fa' });
  });

  it('a password login of a user with two-factor on (the login waited for the code): amr pwd, otp, mfa; two factors', async () => {
    const jar = new CookieJar();
    jar.keep(await request(idp.app).post('/auth/local/login').send({ user: 'pavel', passwd: 'pw' }).expect(200));
    const enrolled = await jar.on(request(idp.app).post('/auth/2fa/enroll')).expect(200);
    const secret = enrolled.body.secret as string;
    await awayFromStepEdge();
    await jar
      .on(request(idp.app).post('/auth/2fa/confirm'))
      .send({ code: code(secret) })
      .expect(200);
    const again = new CookieJar();
    expect((await again.keep(await request(idp.app).post('/auth/local/login').send({ user: 'pavel', passwd: 'pw' }))).status).toBe(202);
    again.keep(
      await again
        .on(request(idp.app).post('/auth/2fa/verify'))
        .send({ code: code(secret, 1) })
        .expect(200),
    );
    const browser = new Navigator();
    browser.cookies.set('JWT', again.get('JWT') as string);
    browser.cookies.set('XSRF-TOKEN', again.get('XSRF-TOKEN') as string);
    expect(await idTokenOf(browser)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'urn:authgate:acr:2fa' });
  });
});
