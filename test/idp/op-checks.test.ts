import * as client from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

const SECRET = 'conformance-client-secret-0123456789abcdef';

/**
 * The checks of the OpenID Foundation's Basic OP certification plan (`oidcc-basic-certification-test-plan`)
 * that run offline against a code-flow provider with client_secret_basic, each named after its
 * test module; run with openid-client as the relying party. Left out: modules for features the
 * provider does not offer (request objects, the claims parameter, client_secret_post, and the
 * authorization request as a form POST, which oidc-provider takes only with SameSite=None session
 * cookies, so never on plain http) and those that need a person to look at a page
 * (display=popup is only checked to succeed).
 */
describe('OpenID Foundation Basic OP checks that run offline', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  let callback: string;
  let config: client.Configuration;

  beforeAll(async () => {
    rp = await nowhere();
    callback = `${rp.url}/cb`;
    idp = await startIdpApp({ clients: [{ clientId: 'rp', clientSecret: SECRET, redirectUris: [callback], trusted: true }] });
    config = await client.discovery(new URL(idp.issuer), 'rp', SECRET, client.ClientSecretBasic(SECRET), { execute: [client.allowInsecureRequests] });
  });
  afterAll(async () => {
    await idp?.close();
    await rp?.close();
  });

  /** Runs an authorization request in `browser`; the callback URL or the page it ended on, and the verifier. */
  async function authorize(browser: Navigator, params: Record<string, string> = {}): Promise<{ url?: URL; page?: Response; verifier: string }> {
    return authorizeIn(browser, config, callback, params, [`${idp.url}/?`]);
  }

  const tokensOf = (ended: { url?: URL; verifier: string }, expectedNonce?: string): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> =>
    client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier, ...(expectedNonce ? { expectedNonce } : {}), idTokenExpected: true });

  it('oidcc-discovery: the configuration names the issuer, the endpoints, the JWKS and what is supported', () => {
    const meta = config.serverMetadata();
    expect(meta).toMatchObject({ issuer: idp.issuer, response_types_supported: ['code'], subject_types_supported: expect.arrayContaining(['public']) });
    for (const field of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri', 'end_session_endpoint', 'revocation_endpoint', 'introspection_endpoint'])
      expect(meta[field]).toEqual(expect.stringMatching(new RegExp(`^${idp.issuer}/`)));
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
    expect(meta.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'private_key_jwt', 'none']));
    expect(meta.id_token_signing_alg_values_supported).not.toContain('none');
  });

  it('oidcc-server: a code flow; the id_token is signed (a kid in the JWKS) and names iss, sub, aud, exp, iat, auth_time', async () => {
    const browser = await new Navigator().login(idp, 'conf-a');
    const nonce = client.randomNonce();
    const tokens = await tokensOf(await authorize(browser, { nonce }), nonce);
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token as string, createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri as string)), { issuer: idp.issuer, audience: 'rp' });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload).toMatchObject({ sub: expect.any(String), exp: expect.any(Number), iat: expect.any(Number), auth_time: expect.any(Number), nonce });
  });

  it('oidcc-ensure-request-without-nonce-succeeds-for-code-flow, oidcc-ensure-request-with-unknown-parameter-succeeds, oidcc-ensure-other-scope-order-succeeds', async () => {
    const browser = await new Navigator().login(idp, 'conf-b');
    expect(decodeJwt((await tokensOf(await authorize(browser))).id_token as string).nonce).toBeUndefined();
    await tokensOf(await authorize(browser, { extra_unknown: 'whatever' }));
    await tokensOf(await authorize(browser, { scope: 'email openid' }));
  });

  it('oidcc-response-type-missing: an error at the redirect URI', async () => {
    const browser = await new Navigator().login(idp, 'conf-c');
    const url = new URL(config.serverMetadata().authorization_endpoint as string);
    url.search = new URLSearchParams({ client_id: 'rp', redirect_uri: callback, scope: 'openid', state: 's' }).toString();
    const ended = await browser.follow(url.href, callback);
    expect(ended.url?.searchParams.get('error')).toBe('invalid_request');
    expect(ended.url?.searchParams.get('state')).toBe('s');
  });

  it('oidcc-userinfo-get, oidcc-userinfo-post-header, oidcc-userinfo-post-body; oidcc-scope-profile, oidcc-scope-email', async () => {
    const browser = await new Navigator().login(idp, 'conf-d');
    const tokens = await tokensOf(await authorize(browser, { scope: 'openid profile email' }));
    const endpoint = config.serverMetadata().userinfo_endpoint as string;
    const asked = [
      await fetch(endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } }),
      await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ access_token: tokens.access_token }) }),
    ];
    for (const res of asked) {
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ sub: tokens.claims()?.sub, name: 'conf-d', preferred_username: 'conf-d' });
    }
  });

  it('oidcc-prompt-none-not-logged-in: login_required; oidcc-prompt-none-logged-in: a code without a page', async () => {
    const stranger = new Navigator();
    expect((await authorize(stranger, { prompt: 'none' })).url?.searchParams.get('error')).toBe('login_required');
    const browser = await new Navigator().login(idp, 'conf-e');
    await tokensOf(await authorize(browser));
    await tokensOf(await authorize(browser, { prompt: 'none' }));
  });

  it('oidcc-max-age-1: a login older than max_age asks for a new one; oidcc-max-age-10000: a recent one does not', async () => {
    const browser = await new Navigator().login(idp, 'conf-f');
    await tokensOf(await authorize(browser, { max_age: '10000' }));
    await new Promise((r) => setTimeout(r, 2100));
    const old = await authorize(browser, { max_age: '1' });
    expect(old.url?.origin).toBe(idp.url);
    expect(old.url?.searchParams.get('fresh')).toBe('1');
  });

  it('oidcc-id-token-hint, oidcc-login-hint, oidcc-ui-locales, oidcc-claims-locales, oidcc-display-page, oidcc-display-popup, oidcc-ensure-request-with-acr-values-succeeds', async () => {
    const browser = await new Navigator().login(idp, 'conf-g');
    const first = await tokensOf(await authorize(browser));
    await tokensOf(await authorize(browser, { prompt: 'none', id_token_hint: first.id_token as string }));
    const extras: Array<Record<string, string>> = [
      { login_hint: 'conf-g' },
      { ui_locales: 'en' },
      { claims_locales: 'en' },
      { display: 'page' },
      { display: 'popup' },
      { acr_values: 'urn:authgate:acr:1fa' },
    ];
    for (const extra of extras) await tokensOf(await authorize(browser, extra));
  });

  it('oidcc-codereuse: a code used twice is refused, and what it gave stops working', async () => {
    const browser = await new Navigator().login(idp, 'conf-h');
    const ended = await authorize(browser);
    const tokens = await tokensOf(ended);
    await expect(tokensOf(ended)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.fetchUserInfo(config, tokens.access_token, tokens.claims()?.sub as string)).rejects.toBeDefined();
  });

  it('oidcc-ensure-registered-redirect-uri: an unregistered redirect URI gets an error page, never a redirect', async () => {
    const browser = await new Navigator().login(idp, 'conf-i');
    const ended = await authorize(browser, { redirect_uri: `${callback}/elsewhere` });
    expect(ended.url).toBeUndefined();
    expect(ended.page?.status).toBe(400);
    expect(await ended.page?.text()).toContain('redirect_uri');
  });

  it('oidcc-refresh-token: offline_access gives a refresh token that refreshes, and the new id_token keeps sub', async () => {
    const browser = await new Navigator().login(idp, 'conf-j');
    const tokens = await tokensOf(await authorize(browser, { scope: 'openid offline_access', prompt: 'consent' }));
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(tokens.claims()?.sub);
  });
});
