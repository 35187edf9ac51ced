import express from 'express';
import http from 'node:http';
import * as client from 'openid-client';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createHash, randomUUID } from 'node:crypto';
import { MemoryStateStore } from '../../src';
import { accessTokenOf, protectedResource, type ProtectedResourceOptions } from '../../src/idp';
import { eventually } from '../support/eventually';
import { freePort } from '../support/ports';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

/** An API on its own port, protected with the identity provider's tokens. */
interface Api {
  url: string;
  close(): Promise<void>;
}

async function startApi(port: number, options: ProtectedResourceOptions): Promise<Api> {
  const guard = protectedResource(options);
  const app = express();
  app.get(guard.metadataPath, guard.metadata);
  app.get('/data', guard.require('read'), (req, res) => res.json({ sub: accessTokenOf(req)?.subject, client: accessTokenOf(req)?.clientId, bound: accessTokenOf(req)?.boundTo !== undefined }));
  app.post('/data', guard.require('write'), (_req, res) => res.json({ written: true }));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await guard.close();
    },
  };
}

const INITIAL_ACCESS_TOKEN = 'initial-access-token-0123456789abcdef';

describe('protectedResource: an API that takes the identity provider access tokens (RFC 9068, 9728, 9449)', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  let apiA: Api;
  let apiA2: Api;
  let apiB: Api;
  let strict: Api;
  let callback: string;
  const replayStore = new MemoryStateStore();

  beforeAll(async () => {
    rp = await nowhere();
    callback = `${rp.url}/callback`;
    const [idpPort, a, b, s] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const issuer = `http://127.0.0.1:${idpPort}/oidc`;
    const [A, B, S] = [a, b, s].map((p) => `http://127.0.0.1:${p}`) as [string, string, string];
    idp = await startIdpApp(
      {
        resources: [
          { id: A, scopes: ['read', 'write'] },
          { id: B, scopes: ['read'] },
          { id: S, scopes: ['read'] },
        ],
        clients: [{ clientId: 'agent', redirectUris: [callback], applicationType: 'web', trusted: true, resources: [A, B, S] }],
        registration: { redirectUris: [`${rp.url}/*`], initialAccessTokens: [INITIAL_ACCESS_TOKEN], resources: [A] },
      },
      { rateLimits: { idpRegistrationPerIp: { limit: 6, windowMs: 3_600_000 } } },
      idpPort,
    );
    // API A runs on two instances that share where used proofs are remembered; the second is reached under the first one's name.
    apiA = await startApi(a, { issuer, resource: A, scopes: ['read', 'write'], replayStore });
    apiA2 = await startApi(await freePort(), { issuer, resource: A, replayStore, url: A });
    apiB = await startApi(b, { issuer, resource: B });
    strict = await startApi(s, { issuer, resource: S, dpop: 'required', dpopNonceKey: 'resource-server-nonce-key-0123456789' });
  });
  afterAll(async () => {
    for (const closable of [apiA, apiA2, apiB, strict, idp, rp]) await closable?.close();
    await replayStore.close();
  });

  /** An MCP-style client: starts from the API's 401, finds the issuer in the metadata, then code + PKCE + resource. */
  async function connect(api: string, scope: string, dpop?: client.DPoPHandle): Promise<{ config: client.Configuration; token: string }> {
    const first = await fetch(`${api}/data`);
    expect(first.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl).toBe(`${api}/.well-known/oauth-protected-resource`);
    const metadata = (await (await fetch(metadataUrl as string)).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata.resource).toBe(api);
    const config = await client.discovery(new URL(metadata.authorization_servers[0]!), 'agent', undefined, client.None(), { execute: [client.allowInsecureRequests] });
    const browser = await new Navigator().login(idp, 'mia');
    const ended = await authorizeIn(browser, config, callback, { scope: `openid ${scope}`, resource: api, state: 'st' });
    if (ended.url?.searchParams.has('error')) throw new Error(String(ended.url));
    const tokens = await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier, expectedState: 'st' }, { resource: api }, dpop ? { DPoP: dpop } : undefined);
    return { config, token: tokens.access_token };
  }

  it('leads a client from the 401 challenge to the issuer; its token for the API works there, and only there', async () => {
    const { token } = await connect(apiA.url, 'read');
    const ok = await fetch(`${apiA.url}/data`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ sub: expect.stringMatching(/^local_/), client: 'agent', bound: false });
    const elsewhere = await fetch(`${apiB.url}/data`, { headers: { authorization: `Bearer ${token}` } });
    expect(elsewhere.status).toBe(401);
    expect(await elsewhere.json()).toMatchObject({ code: 'invalid_token' });
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // A scope the token does not hold: 403 naming it.
    const write = await fetch(`${apiA.url}/data`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope", error_description="the token lacks the scope write", scope="write"');
  });

  it('a DPoP-bound token needs a proof of its key on every call; a proof replayed on another instance, for another URL or without one is refused', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const { config, token } = await connect(apiA.url, 'read write', client.getDPoPHandle(await discoveryOf(), keys));
    const call = (url: string, method = 'GET'): Promise<Response> =>
      client.fetchProtectedResource(config, token, new URL(url), method, undefined, undefined, { DPoP: client.getDPoPHandle(config, keys) });
    const ok = await call(`${apiA.url}/data`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ bound: true });
    expect((await call(`${apiA.url}/data`, 'POST')).status).toBe(200);
    expect((await fetch(`${apiA.url}/data`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await fetch(`${apiA.url}/data`, { headers: { authorization: `DPoP ${token}` } })).status).toBe(401);

    // One proof, made as a client makes it, sent to one instance and then to the other instance of the same API.
    const proof = await new SignJWT({ htm: 'GET', htu: `${apiA.url}/data`, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
      .setIssuedAt()
      .sign(keys.privateKey);
    expect((await fetch(`${apiA.url}/data`, { headers: { authorization: `DPoP ${token}`, dpop: proof } })).status).toBe(200);
    const replayed = await fetch(`${apiA2.url}/data`, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    expect(replayed.status).toBe(401);
    expect(await replayed.json()).toMatchObject({ code: 'invalid_dpop_proof', error: 'the DPoP proof was used already' });
    // The same proof at another URL (a fresh jti would not help: htu is checked first).
    const moved = await fetch(`${apiB.url}/data`, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    expect(moved.status).toBe(401);
  });

  it('an API that requires DPoP with nonces hands one out, and a proof made with it is accepted (openid-client retries by itself)', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const handle = client.getDPoPHandle(await discoveryOf(), keys);
    const { config, token } = await connect(strict.url, 'read', handle);
    const proof = async (nonce?: string): Promise<string> =>
      new SignJWT({ htm: 'GET', htu: `${strict.url}/data`, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url'), ...(nonce ? { nonce } : {}) })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
        .setIssuedAt()
        .sign(keys.privateKey);
    const asked = await fetch(`${strict.url}/data`, { headers: { authorization: `DPoP ${token}`, dpop: await proof() } });
    expect(asked.status).toBe(401);
    expect(await asked.json()).toMatchObject({ code: 'use_dpop_nonce' });
    const nonce = asked.headers.get('dpop-nonce') as string;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.headers.get('www-authenticate')).toMatch(/^DPoP algs="ES256 EdDSA", resource_metadata="[^"]+", error="use_dpop_nonce"/);
    expect((await fetch(`${strict.url}/data`, { headers: { authorization: `DPoP ${token}`, dpop: await proof(nonce) } })).status).toBe(200);
    expect((await fetch(`${strict.url}/data`, { headers: { authorization: `DPoP ${token}`, dpop: await proof('made-up-nonce') } })).status).toBe(401);
    // openid-client keeps the nonce of the refusal and uses it on the next call.
    const call = (): Promise<Response> => client.fetchProtectedResource(config, token, new URL(`${strict.url}/data`), 'GET', undefined, undefined, { DPoP: handle });
    const first = await call().catch(() => undefined);
    expect((first?.status === 200 ? first : await call()).status).toBe(200);
  });

  it('an MCP client with no setup: from the 401 to a registration of its own, consent, a token for the API and a call', async () => {
    const first = await fetch(`${apiA.url}/data`);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(first.headers.get('www-authenticate') ?? '')?.[1] as string;
    const {
      authorization_servers: [issuer],
    } = (await (await fetch(metadataUrl)).json()) as { authorization_servers: string[] };
    const meta = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as { registration_endpoint: string };
    expect(meta.registration_endpoint).toBe(`${issuer}/reg`);
    const register = (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> =>
      fetch(meta.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const asAgent = { client_name: 'Research Agent', redirect_uris: [`${rp.url}/agent-callback`], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] };
    const made = await register(asAgent);
    expect([made.status, made.status === 201 ? '' : await made.clone().text()]).toEqual([201, '']);
    const registered = (await made.json()) as { client_id: string; client_secret?: string };
    expect(registered.client_id).toMatch(/^dyn_/);
    expect(registered.client_secret).toBeUndefined();
    await eventually(async () => {
      const { events } = await idp.auth.events.list({ types: ['idp.client.registered'] });
      expect(events[0]).toMatchObject({ actor: { kind: 'system' }, data: { client: registered.client_id, name: 'Research Agent', type: 'public', selfRegistered: true } });
    });

    // The policy: redirect URIs elsewhere, other grants, and confidential clients without an initial access token are refused.
    expect(await (await register({ ...asAgent, redirect_uris: ['https://evil.example/cb'] })).json()).toMatchObject({ error: 'invalid_redirect_uri' });
    expect((await register({ ...asAgent, grant_types: ['client_credentials'] })).status).toBe(400);
    const secretless = await register({ ...asAgent, token_endpoint_auth_method: 'client_secret_basic' });
    expect(await secretless.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringContaining('initial access token') });
    const confidential = await register({ ...asAgent, token_endpoint_auth_method: 'client_secret_basic' }, { authorization: `Bearer ${INITIAL_ACCESS_TOKEN}` });
    expect(confidential.status).toBe(201);
    expect(((await confidential.json()) as { client_secret: string }).client_secret).toEqual(expect.any(String));

    const config = await client.discovery(new URL(issuer as string), registered.client_id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
    const browser = await new Navigator().login(idp, 'max');
    const agentCallback = `${rp.url}/agent-callback`;
    const asked = await authorizeIn(browser, config, agentCallback, { scope: 'read', resource: apiA.url, state: 'm' });
    const page = await (asked.page as Response).text();
    expect(page).toContain('Research Agent');
    const allowed = await browser.follow(`${idp.url}${/action="([^"]+)"/.exec(page)?.[1] as string}`, agentCallback, {
      method: 'POST',
      form: { csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string, decision: 'allow' },
    });
    const tokens = await client.authorizationCodeGrant(config, allowed.url as URL, { pkceCodeVerifier: asked.verifier, expectedState: 'm' }, { resource: apiA.url });
    const call = await fetch(`${apiA.url}/data`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(call.status).toBe(200);
    expect(await call.json()).toMatchObject({ client: registered.client_id });
    // A registered client asks only for the resources the policy names.
    const other = await authorizeIn(browser, config, agentCallback, { scope: 'read', resource: apiB.url, state: 'n' });
    expect(other.url?.searchParams.get('error')).toBe('invalid_target');
    // Registrations are limited per address (idpRegistrationPerIp, 6 an hour here).
    const answers: Response[] = [];
    for (let i = 0; i < 8; i++) answers.push(await register(asAgent));
    expect(answers.slice(-2).map((r) => r.status)).toEqual([429, 429]);
    // The limit answers in the shape of the endpoint's other errors (RFC 7591): error, error_description.
    expect(await answers.at(-1)!.json()).toEqual({ error: 'rate_limited', error_description: expect.stringContaining('too many client registrations'), code: 'rate_limited' });
  });

  it('answers hostile Authorization and DPoP headers with 401 JSON, never a 500', async () => {
    for (const authorization of ['Bearer', 'Bearer ', 'Basic abc', `Bearer ${'a'.repeat(12_000)}`, 'Bearer a.b.c', 'DPoP \u00e9\u00ff', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']) {
      const res = await fetch(`${apiA.url}/data`, { headers: { authorization, dpop: 'x.y.z' } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toMatch(/^invalid_/);
    }
  });

  const discoveryOf = (): Promise<client.Configuration> => client.discovery(new URL(`${idp.issuer}`), 'agent', undefined, client.None(), { execute: [client.allowInsecureRequests] });
});
