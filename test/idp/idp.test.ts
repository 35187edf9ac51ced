import * as client from 'openid-client';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { join } from 'node:path';
import { spawnReady, type ReadyProcess } from '../support/ready-process';
import request from 'supertest';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

const SECRET_OF_WEB = 'web-app-client-secret-0123456789abcdef';

describe('the identity provider, with openid-client as the relying party', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  let callback: string;

  beforeAll(async () => {
    rp = await nowhere();
    callback = `${rp.url}/callback`;
    idp = await startIdpApp({
      clients: [
        { clientId: 'web', name: 'Team Wiki', clientSecret: SECRET_OF_WEB, redirectUris: [callback], trusted: true },
        { clientId: 'partner', name: 'Partner App', clientSecret: SECRET_OF_WEB, redirectUris: [callback] },
        { clientId: 'cli', name: 'Team CLI', redirectUris: ['http://127.0.0.1/cb'], applicationType: 'native', deviceFlow: true, trusted: true },
      ],
    });
  });
  afterAll(async () => {
    await idp?.close();
    await rp?.close();
  });

  const discover = (clientId: string, secret?: string): Promise<client.Configuration> =>
    client.discovery(new URL(idp.issuer), clientId, secret, secret ? client.ClientSecretBasic(secret) : client.None(), { execute: [client.allowInsecureRequests] });

  /** Runs the authorization request in `browser` and returns where it ended: the callback URL, or a page. */
  async function authorize(config: client.Configuration, browser: Navigator, extra: Record<string, string> = {}): Promise<{ url?: URL; page?: Response; verifier: string; state: string }> {
    const state = client.randomState();
    return { ...(await authorizeIn(browser, config, callback, { scope: 'openid profile email offline_access', prompt: 'consent', state, ...extra }, [`${idp.url}/?`])), state };
  }

  it('publishes discovery and a JWKS of its own ES256 key; the code flow with PKCE logs in an authgate session without asking again', async () => {
    const config = await discover('web', SECRET_OF_WEB);
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(idp.issuer);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    expect(meta.id_token_signing_alg_values_supported).toEqual(['ES256']);
    const jwks = (await (await fetch(meta.jwks_uri as string)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');

    const browser = await new Navigator().login(idp, 'alice');
    const ended = await authorize(config, browser);
    expect(ended.url?.searchParams.get('iss')).toBe(idp.issuer);
    const tokens = await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier, expectedState: ended.state });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: idp.issuer, aud: 'web' });
    expect(claims?.sub).toMatch(/^local_/);
    expect(decodeProtectedHeader(tokens.id_token as string)).toMatchObject({ alg: 'ES256', kid: jwks.keys[0]?.kid });
    const info = await client.fetchUserInfo(config, tokens.access_token, claims?.sub as string);
    expect(info).toMatchObject({ sub: claims?.sub, name: 'alice' });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    // A code works once: a second redemption is refused, and revokes what the first one gave.
    await expect(client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier, expectedState: ended.state })).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.fetchUserInfo(config, tokens.access_token, claims?.sub as string)).rejects.toBeDefined();
  });

  it('without an authgate session the browser goes to the login page and comes back; prompt=login asks for a new login although one exists', async () => {
    const config = await discover('web', SECRET_OF_WEB);
    const browser = new Navigator();
    const first = await authorize(config, browser);
    const login = first.url as URL;
    expect(login.origin).toBe(idp.url);
    const back = login.searchParams.get('return_to') as string;
    expect(back).toMatch(new RegExp(`^${idp.issuer}/interaction/`));
    await browser.login(idp, 'bob');
    const resumed = await browser.follow(back, callback);
    const tokens = await client.authorizationCodeGrant(config, resumed.url as URL, { pkceCodeVerifier: first.verifier, expectedState: first.state });
    expect(await client.fetchUserInfo(config, tokens.access_token, tokens.claims()?.sub as string)).toMatchObject({ name: 'bob' });

    // A login made before the request does not satisfy prompt=login (beyond the second the instances' clocks may differ).
    await new Promise((r) => setTimeout(r, 2100));
    const again = await authorize(config, browser, { prompt: 'login consent' });
    const fresh = again.url as URL;
    expect(fresh.searchParams.get('fresh')).toBe('1');
    await browser.login(idp, 'bob');
    const done = await browser.follow(fresh.searchParams.get('return_to') as string, callback);
    const second = await client.authorizationCodeGrant(config, done.url as URL, { pkceCodeVerifier: again.verifier, expectedState: again.state });
    expect(second.claims()?.auth_time as number).toBeGreaterThan(tokens.claims()?.auth_time as number);
  });

  it('refresh tokens rotate; a reused one revokes its whole family; revocation and introspection answer the client', async () => {
    const config = await discover('web', SECRET_OF_WEB);
    const browser = await new Navigator().login(idp, 'carol');
    const ended = await authorize(config, browser);
    const first = await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier, expectedState: ended.state });
    const second = await client.refreshTokenGrant(config, first.refresh_token as string);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const third = await client.refreshTokenGrant(config, second.refresh_token as string);
    const live = await client.tokenIntrospection(config, third.access_token);
    expect(live).toMatchObject({ active: true, client_id: 'web' });

    await expect(client.refreshTokenGrant(config, first.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, third.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await client.tokenIntrospection(config, third.access_token)).toMatchObject({ active: false });

    const other = await authorize(config, browser);
    const fourth = await client.authorizationCodeGrant(config, other.url as URL, { pkceCodeVerifier: other.verifier, expectedState: other.state });
    await client.tokenRevocation(config, fourth.refresh_token as string);
    await expect(client.refreshTokenGrant(config, fourth.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('an app that is not trusted gets a consent page (no script, its own CSP); deny answers access_denied, allow gives a code; the user lists and revokes it', async () => {
    const config = await discover('partner', SECRET_OF_WEB);
    const browser = await new Navigator().login(idp, 'dave');
    const denied = await authorize(config, browser);
    expect(denied.page?.status).toBe(200);
    const html = await (denied.page as Response).text();
    expect(html).toContain('Partner App wants to');
    expect(html).toContain('see your e-mail address');
    expect(html).not.toContain('<script');
    const csp = denied.page?.headers.get('content-security-policy') as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`form-action 'self' ${rp.url}`);
    const action = /action="([^"]+)"/.exec(html)?.[1] as string;
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;

    const forged = await browser.fetch(`${idp.url}${action}`, { method: 'POST', form: { csrf: 'x', decision: 'allow' } });
    expect(forged.status).toBe(403);
    const crossSite = await browser.fetch(`${idp.url}${action}`, { method: 'POST', form: { csrf, decision: 'allow' }, headers: { origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    const no = await browser.follow(`${idp.url}${action}`, callback, { method: 'POST', form: { csrf, decision: 'deny' } });
    expect(no.url?.searchParams.get('error')).toBe('access_denied');

    const asked = await authorize(config, browser);
    const page = await (asked.page as Response).text();
    const yes = await browser.follow(`${idp.url}${/action="([^"]+)"/.exec(page)?.[1] as string}`, callback, {
      method: 'POST',
      form: { csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string, decision: 'allow' },
    });
    const tokens = await client.authorizationCodeGrant(config, yes.url as URL, { pkceCodeVerifier: asked.verifier, expectedState: asked.state });
    expect(decodeJwt(tokens.id_token as string).aud).toBe('partner');

    const jwt = browser.cookies.get('JWT') as string;
    const xsrf = browser.cookies.get('XSRF-TOKEN') as string;
    const apps = await request(idp.app).get('/auth/apps').set('Cookie', `JWT=${jwt}; XSRF-TOKEN=${xsrf}`).set('X-XSRF-TOKEN', xsrf).expect(200);
    expect(apps.body).toEqual([expect.objectContaining({ clientId: 'partner', name: 'Partner App', scopes: expect.arrayContaining(['openid', 'email']) })]);
    await request(idp.app).delete('/auth/apps/partner').set('Cookie', `JWT=${jwt}; XSRF-TOKEN=${xsrf}`).set('X-XSRF-TOKEN', xsrf).expect(200);
    await request(idp.app).delete('/auth/apps/no-such-app').set('Cookie', `JWT=${jwt}; XSRF-TOKEN=${xsrf}`).set('X-XSRF-TOKEN', xsrf).expect(404);
    await idp.auth.events.flush();
    expect((await idp.auth.events.list({ types: ['idp.app.revoked'] })).events).toEqual([expect.objectContaining({ actor: { kind: 'user', id: expect.any(String) }, data: { client: 'partner' } })]);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await request(idp.app).get('/auth/apps').set('Cookie', `JWT=${jwt}; XSRF-TOKEN=${xsrf}`).set('X-XSRF-TOKEN', xsrf)).body).toEqual([]);
  });

  it("the provider's session follows the browser's authgate session: another user signed in, or none, never gets the first user's codes", async () => {
    const config = await discover('web', SECRET_OF_WEB);
    const browser = await new Navigator().login(idp, 'ivan');
    const first = await authorize(config, browser);
    const ivan = (await client.authorizationCodeGrant(config, first.url as URL, { pkceCodeVerifier: first.verifier, expectedState: first.state })).claims()?.sub;
    // The authgate session is gone (expired, cleared): the provider's own session cookie alone is not enough.
    browser.cookies.delete('JWT');
    browser.cookies.delete('XSRF-TOKEN');
    expect((await authorize(config, browser, { prompt: 'none' })).url?.searchParams.get('error')).toBe('login_required');
    // Another user signs in to authgate in the same browser: the code is that user's.
    await browser.login(idp, 'judy');
    const second = await authorize(config, browser);
    // oidc-provider ends the provider session of the previous user with a self-submitting form (as a browser submits it).
    const form = await (second.page as Response).text();
    const fields = Object.fromEntries([...form.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
    const ended = await browser.follow(new URL(/action="([^"]+)"/.exec(form)?.[1] as string, idp.url).href, callback, { method: 'POST', form: fields });
    const judy = (await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: second.verifier, expectedState: second.state })).claims()?.sub;
    expect(judy).toMatch(/^local_/);
    expect(judy).not.toBe(ivan);
    // Judy's authgate session lives on: only the previous user's provider session ended.
    const me = await request(idp.app)
      .get('/auth/user')
      .set('Cookie', `JWT=${browser.cookies.get('JWT')}`)
      .set('X-XSRF-TOKEN', browser.cookies.get('XSRF-TOKEN') as string);
    expect(me.body).toMatchObject({ id: judy });
  });

  it("a banned user's refresh token and access token stop at their next use", async () => {
    const config = await discover('web', SECRET_OF_WEB);
    const browser = await new Navigator().login(idp, 'gina');
    const ended = await authorize(config, browser);
    const tokens = await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier, expectedState: ended.state });
    const sub = tokens.claims()?.sub as string;
    await idp.auth.users.update(sub, (u) => ({ ...u, status: 'banned', banReason: 'test' }));
    await expect(client.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.fetchUserInfo(config, tokens.access_token, sub)).rejects.toBeDefined();
  });

  it('a public client without PKCE is refused; a redirect URI that is not registered exactly is refused before any redirect', async () => {
    const config = await discover('web', SECRET_OF_WEB);
    const browser = await new Navigator().login(idp, 'erin');
    const noPkce = client.buildAuthorizationUrl(config, { redirect_uri: callback, scope: 'openid', state: 's' });
    const refused = await browser.follow(noPkce.href, callback);
    expect(refused.url?.searchParams.get('error')).toBe('invalid_request');
    const elsewhere = client.buildAuthorizationUrl(config, { redirect_uri: `${callback}/../evil`, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    const page = await browser.follow(elsewhere.href, 'https://never');
    expect(page.page?.status).toBe(400);
  });

  it('the device flow (RFC 8628): the CLI shows a code, the user enters it in a signed-in browser, the CLI gets tokens', async () => {
    const config = await client.discovery(new URL(idp.issuer), 'cli', undefined, client.None(), { execute: [client.allowInsecureRequests] });
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(started.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    const browser = await new Navigator().login(idp, 'frank');
    const form = await browser.fetch(started.verification_uri);
    const html = await form.text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const entered = await browser.follow(started.verification_uri, 'https://never', { method: 'POST', form: { xsrf, user_code: started.user_code } });
    const confirm = await (entered.page as Response).text();
    const confirmXsrf = /name="xsrf" value="([^"]+)"/.exec(confirm)?.[1] as string;
    const done = await browser.follow(new URL(/action="([^"]+)"/.exec(confirm)?.[1] as string, idp.url).href, 'https://never', {
      method: 'POST',
      form: { xsrf: confirmXsrf, confirm: 'yes', user_code: started.user_code },
    });
    expect(done.page?.status).toBe(200);
    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 });
    expect(await client.fetchUserInfo(config, tokens.access_token, tokens.claims()?.sub as string)).toMatchObject({ name: 'frank' });
  });
});

describe('the identity provider in a process of its own, with a private_key_jwt client', () => {
  let child: ReadyProcess | undefined;
  let url: string;
  let key: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  let rp: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    rp = await nowhere();
    const pair = await generateKeyPair('ES256', { extractable: true });
    key = pair.privateKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'svc-1', alg: 'ES256', use: 'sig' };
    const clients = [{ clientId: 'svc', name: 'Reports', jwks: { keys: [publicJwk] }, redirectUris: [`${rp.url}/callback`], trusted: true }];
    child = await spawnReady(['--import', 'tsx', join(__dirname, '../support/idp-server.ts'), JSON.stringify({ clients })], { timeoutMs: 60_000 });
    url = child.payload;
  }, 90_000);
  afterAll(async () => {
    await child?.stop();
    await rp?.close();
  });

  it('authenticates with a signed assertion; an assertion signed with another key is refused', async () => {
    const meta = { execute: [client.allowInsecureRequests] };
    const config = await client.discovery(new URL(`${url}/oidc`), 'svc', undefined, client.PrivateKeyJwt({ key, kid: 'svc-1' }), meta);
    const browser = await new Navigator().login(url, 'hank');
    const ended = await authorizeIn(browser, config, `${rp.url}/callback`, { scope: 'openid offline_access', prompt: 'consent' });
    const tokens = await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier });
    expect(decodeJwt(tokens.id_token as string).aud).toBe('svc');
    const impostor = await client.discovery(new URL(`${url}/oidc`), 'svc', undefined, client.PrivateKeyJwt({ key: (await generateKeyPair('ES256')).privateKey, kid: 'svc-1' }), meta);
    await expect(client.refreshTokenGrant(impostor, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_client' });
    expect((await client.refreshTokenGrant(config, tokens.refresh_token as string)).access_token).toEqual(expect.any(String));
  });
});
