import * as client from 'openid-client';
import { decodeJwt, createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { MemoryStateStore } from '../../src';
import { StateAdapter } from '../../src/plugins/idp/state-adapter';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

const SECRET = 'confidential-client-secret-0123456789abcdef';
const API_A = 'https://api-a.example.test';
const API_B = 'https://api-b.example.test';

describe('the identity provider as a modern authorization server: PAR, DPoP, resource indicators (openid-client as the client)', () => {
  let a: IdpApp;
  let b: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  let callback: string;

  beforeAll(async () => {
    rp = await nowhere();
    callback = `${rp.url}/callback`;
    const clients = [
      { clientId: 'web', clientSecret: SECRET, redirectUris: [callback], trusted: true, resources: [API_A] },
      { clientId: 'pushy', clientSecret: SECRET, redirectUris: [callback], trusted: true, requirePushedAuthorizationRequests: true },
      { clientId: 'bound', redirectUris: [callback], trusted: true, applicationType: 'web' as const, dpopRequired: true, resources: [API_A] },
    ];
    const resources = [
      { id: API_A, scopes: ['read', 'write'] },
      { id: API_B, scopes: ['read'] },
    ];
    // Two instances of one issuer over one state store: what a load balancer in front of both sees.
    const stateStore = new MemoryStateStore();
    a = await startIdpApp({ clients, resources }, { stateStore });
    b = await startIdpApp({ clients, resources, issuer: a.issuer }, { stateStore, url: a.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await rp?.close();
  });

  const discover = (clientId: string, secret?: string): Promise<client.Configuration> =>
    client.discovery(new URL(a.issuer), clientId, secret, secret ? client.ClientSecretBasic(secret) : client.None(), { execute: [client.allowInsecureRequests] });

  /** Signs in `user` in a fresh browser and runs the code flow to the callback; the tokens. */
  async function codeFlow(
    config: client.Configuration,
    user: string,
    params: Record<string, string>,
    grantOptions: { DPoP?: client.DPoPHandle; resource?: string } = {},
  ): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
    const browser = await new Navigator().login(a, user);
    const state = client.randomState();
    const ended = await authorizeIn(browser, config, callback, { scope: 'openid', state, ...params });
    if (ended.url === undefined) throw new Error(`the flow stopped on a page: ${ended.page?.status} ${await ended.page?.text()}`);
    return client.authorizationCodeGrant(
      config,
      ended.url,
      { pkceCodeVerifier: ended.verifier, expectedState: state },
      grantOptions.resource ? { resource: grantOptions.resource } : undefined,
      grantOptions.DPoP ? { DPoP: grantOptions.DPoP } : undefined,
    );
  }

  it('publishes the PAR endpoint and the DPoP algorithms in discovery', async () => {
    const meta = (await discover('web', SECRET)).serverMetadata();
    expect(meta.pushed_authorization_request_endpoint).toBe(`${a.issuer}/request`);
    expect(meta.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
    // Clients register themselves only where registration is given.
    expect(meta.registration_endpoint).toBeUndefined();
    expect((await fetch(`${a.issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
  });

  it('PAR: a client that must push is refused a plain authorization request and logs in with a pushed one', async () => {
    const config = await discover('pushy', SECRET);
    const browser = await new Navigator().login(a, 'paula');
    const plain = await authorizeIn(browser, config, callback, { scope: 'openid', state: 's' });
    expect(plain.url?.searchParams.get('error') ?? (await plain.page?.text())).toMatch(/invalid_request|pushed authorization request/i);

    const verifier = client.randomPKCECodeVerifier();
    const pushed = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: callback,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'p',
    });
    expect([...pushed.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const ended = await browser.follow(pushed.href, [callback]);
    const tokens = await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: verifier, expectedState: 'p' });
    expect(tokens.claims()?.sub).toMatch(/^local_/);
  });

  it('DPoP: a client that must bind its tokens is refused a bearer token, gets a DPoP-bound one, and a proof replayed on the other instance is refused', async () => {
    const config = await discover('bound');
    await expect(codeFlow(config, 'dora', {})).rejects.toMatchObject({ error: 'invalid_grant' });
    const keys = await generateKeyPair('ES256', { extractable: true });
    const tokens = await codeFlow(config, 'dora', { scope: 'openid offline_access', prompt: 'consent' }, { DPoP: client.getDPoPHandle(config, keys) });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    // The token says which key it is bound to; userinfo takes it only with a proof of that key.
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()?.sub as string, { DPoP: client.getDPoPHandle(config, keys) });
    expect(info.sub).toBe(tokens.claims()?.sub);
    const bearer = await fetch(`${a.issuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(bearer.status).toBe(401);

    // One proof, sent twice: to A (accepted), then to B (the same jti: refused, through the shared store).
    const jwk = await exportJWK(keys.publicKey);
    const newProof = (): Promise<string> =>
      new SignJWT({ htm: 'POST', htu: `${a.issuer}/token`, jti: randomUUID() }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).setIssuedAt().sign(keys.privateKey);
    let proof = await newProof();
    // Both instances are asked under A's host name, as behind one load balancer.
    const refresh = (instance: IdpApp, token: string): Promise<{ status: number; body: Record<string, string> }> =>
      new Promise((resolve, reject) => {
        const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: 'bound' }).toString();
        const req = http.request(`${instance.url}/oidc/token`, { method: 'POST', headers: { host: new URL(a.url).host, 'content-type': 'application/x-www-form-urlencoded', dpop: proof } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, string> }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const first = await refresh(a, tokens.refresh_token as string);
    expect(first.status).toBe(200);
    const replayed = await refresh(b, first.body.refresh_token as string);
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The same new proof at A and B at once, each with a refresh token of its own: one is taken.
    const other = await codeFlow(config, 'dora', { scope: 'openid offline_access', prompt: 'consent' }, { DPoP: client.getDPoPHandle(config, keys) });
    proof = await newProof();
    const raced = await Promise.all([refresh(a, other.refresh_token as string), refresh(b, first.body.refresh_token as string)]);
    expect(raced.map((r) => r.status).sort()).toEqual([200, 400]);
    const left = raced[0]!.status === 200 ? first.body.refresh_token : (raced[1]!.body.refresh_token as string);
    // A fresh proof of the same key works on B: the refusal was the replay, not the instance.
    const fresh = await client.refreshTokenGrant(config, left as string, undefined, { DPoP: client.getDPoPHandle(config, keys) });
    expect(fresh.token_type.toLowerCase()).toBe('dpop');
  });

  it('resource indicators: a token for API A is a JWT whose aud is A, with A scopes only; API B is refused to a client not allowed it, and A token fails at B', async () => {
    const config = await discover('web', SECRET);
    const tokens = await codeFlow(config, 'rita', { scope: 'openid read write', resource: API_A }, { resource: API_A });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ iss: a.issuer, aud: API_A, client_id: 'web', scope: 'read write' });
    const jwks = createRemoteJWKSet(new URL(`${a.issuer}/jwks`));
    await expect(jwtVerify(tokens.access_token, jwks, { issuer: a.issuer, audience: API_A })).resolves.toBeDefined();
    await expect(jwtVerify(tokens.access_token, jwks, { issuer: a.issuer, audience: API_B })).rejects.toThrow(/aud/);

    const browser = await new Navigator().login(a, 'rita');
    const refused = await authorizeIn(browser, config, callback, { scope: 'openid read', resource: API_B, state: 'x' });
    expect(refused.url?.searchParams.get('error')).toBe('invalid_target');
    const unknown = await authorizeIn(browser, config, callback, { scope: 'openid', resource: 'https://nowhere.example.test', state: 'y' });
    expect(unknown.url?.searchParams.get('error')).toBe('invalid_target');
  });
});

describe("oidc-provider's replay detection on the state store", () => {
  it('lets one of many instances looking up one proof id at once find it free (the look claims it)', async () => {
    const store = new MemoryStateStore();
    const instances = Array.from({ length: 20 }, () => new StateAdapter('ReplayDetection', store, (m) => new Error(m)));
    const found = await Promise.all(instances.map((adapter) => adapter.find('proof-jti-hash')));
    expect(found.filter((f) => f === undefined)).toHaveLength(1);
    expect(await instances[0]!.find('proof-jti-hash')).toBeDefined();
  });
});
