import express from 'express';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { accessTokenOf, protectedResource } from '../../src/idp';
import { freePort } from '../support/ports';
import { Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

/** An MCP server (the SDK's own, over Streamable HTTP) behind `protectedResource`, with one tool that says who called. */
async function startMcpServer(port: number, issuer: string, scopes: string[] | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const url = `http://127.0.0.1:${port}`;
  const guard = protectedResource({ issuer, resource: `${url}/mcp`, ...(scopes !== undefined ? { scopes } : {}) });
  const app = express();
  app.use(express.json());
  app.get(guard.metadataPath, guard.metadata);
  app.post('/mcp', guard.require(...(scopes ?? [])), async (req, res) => {
    const server = new McpServer({ name: 'authgate-test', version: '1.0.0' });
    // What the SDK hands a tool (req.auth, set by the guard), and what authgate's own accessor says: the same.
    server.registerTool('whoami', { description: 'Who the token speaks for' }, (extra) => ({
      content: [
        {
          type: 'text',
          text: `${String(extra.authInfo?.extra?.subject ?? 'nobody')} via ${extra.authInfo?.clientId ?? '?'}${extra.authInfo?.clientId === accessTokenOf(req)?.clientId ? '' : ' (mismatch)'}`,
        },
      ],
    }));
    // Stateless: a server and a transport per request, as the SDK's own examples do.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const listening = http.createServer(app);
  await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
  return {
    url,
    close: async () => {
      listening.closeAllConnections();
      await new Promise((r) => listening.close(r));
      await guard.close();
    },
  };
}

/** What the SDK asks an app to keep between its steps (in memory here), and the authorization URL it sends the user to. */
class AgentStorage implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(private readonly callback: string) {}
  get redirectUrl(): string {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK Agent', redirect_uris: [this.callback], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** The user's part: signed in to authgate, follows the authorization URL and presses Allow on the consent page; the code. */
async function consentAs(idp: IdpApp, user: string, authorizationUrl: URL, callback: string): Promise<{ code: string; consentPage: string }> {
  const browser = await new Navigator().login(idp, user);
  const shown = await browser.follow(authorizationUrl.href, [callback]);
  if (shown.page === undefined) throw new Error(`no consent page: went to ${String(shown.url)}`);
  const html = await shown.page.text();
  const action = /action="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (action === undefined || csrf === undefined) throw new Error(`not a consent page (${shown.page.status}): ${html.slice(0, 300)}`);
  const pressed = await browser.follow(`${idp.url}${action}`, [callback], { method: 'POST', form: { csrf, decision: 'allow' } });
  const code = pressed.url?.searchParams.get('code');
  if (code === null || code === undefined) throw new Error(`no code: ${String(pressed.url)} ${pressed.page?.status ?? ''}`);
  return { code, consentPage: html };
}

/**
 * The official MCP SDK's client (`@modelcontextprotocol/sdk`) against authgate's identity provider
 * and an MCP server of the same SDK: 401, protected resource metadata, authorization server
 * discovery, dynamic registration, consent, code + PKCE + resource, then a tool call.
 */
describe('the official MCP SDK connects end to end', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  let withScopes: { url: string; close(): Promise<void> };
  let withoutScopes: { url: string; close(): Promise<void> };
  let callback: string;
  let C: string;

  /** An authorization request built by hand (no scope unless given), followed by a signed-in browser. */
  async function authorize(clientId: string, params: Record<string, string>): Promise<URL | undefined> {
    const url = new URL(`${idp.issuer}/auth`);
    for (const [k, v] of Object.entries({ client_id: clientId, response_type: 'code', redirect_uri: callback, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', state: 's', ...params }))
      url.searchParams.set(k, v);
    return (await (await new Navigator().login(idp, 'mia')).follow(url.href, [callback])).url;
  }

  beforeAll(async () => {
    rp = await nowhere();
    callback = `${rp.url}/callback`;
    const [idpPort, a, b] = [await freePort(), await freePort(), await freePort()];
    const issuer = `http://127.0.0.1:${idpPort}/oidc`;
    const [A, B] = [`http://127.0.0.1:${a}/mcp`, `http://127.0.0.1:${b}/mcp`];
    C = 'https://admin-api.example';
    idp = await startIdpApp(
      {
        resources: [
          { id: A, scopes: ['tools'] },
          { id: B, scopes: ['tools'] },
          { id: C, scopes: ['admin'] },
        ],
        clients: [
          { clientId: 'stranger', redirectUris: [callback], applicationType: 'web', trusted: true, resources: [] },
          { clientId: 'helper', redirectUris: [callback], applicationType: 'web', trusted: true, resources: [A] },
        ],
        registration: { redirectUris: [`${rp.url}/*`], resources: [A, B] },
      },
      // What a resource's scope lets an app do, in the app's own words (else the consent page shows its name).
      { translations: { messages: { en: { 'page.scope.tools': 'use the tools of the test server' } } } },
      idpPort,
    );
    withScopes = await startMcpServer(a, issuer, ['tools']);
    withoutScopes = await startMcpServer(b, issuer, undefined);
  });
  afterAll(async () => {
    for (const closable of [withScopes, withoutScopes, idp, rp]) await closable?.close();
  });

  async function connectAndCall(server: string): Promise<{ text: string; storage: AgentStorage; consentPage: string }> {
    const storage = new AgentStorage(callback);
    const first = new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: storage });
    await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(storage.client?.client_id).toMatch(/^dyn_/);
    expect(storage.authorizationUrl).toBeDefined();
    const { code, consentPage } = await consentAs(idp, 'mia', storage.authorizationUrl as URL, callback);
    await first.finishAuth(code);
    expect(storage.saved?.access_token).toBeDefined();
    const agent = new Client({ name: 'agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server}/mcp`), { authProvider: storage }));
    const result = (await agent.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ type: string; text: string }> };
    await agent.close();
    return { text: result.content[0]?.text ?? '', storage, consentPage };
  }

  it("authgate's side of what the SDK reads: a challenge without an error code, RFC 8414's metadata URL, the resources' scopes", async () => {
    const first = await fetch(`${withScopes.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(first.status).toBe(401);
    const challenge = first.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer resource_metadata="[^"]+", scope="tools", DPoP /);
    expect(challenge).not.toContain('error=');
    const inserted = await fetch(new URL('/.well-known/oauth-authorization-server/oidc', idp.url));
    expect(inserted.status).toBe(200);
    const metadata = (await inserted.json()) as { issuer: string; scopes_supported: string[]; registration_endpoint: string };
    expect(metadata.issuer).toBe(idp.issuer);
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['openid', 'tools']));
    expect(metadata.registration_endpoint).toBe(`${idp.issuer}/reg`);
  });

  it("resource scopes stay with the resources: a client asks only for those of resources it may use; a static client's request without scope gets openid and the resource's", async () => {
    // A client allowed no resource asks for another resource's scope without naming it (it would
    // land in an opaque token and its introspection): refused.
    const stranger = await authorize('stranger', { scope: 'openid admin tools' });
    expect(stranger?.searchParams.get('error')).toBe('invalid_scope');
    // A static client (its id_tokens carry auth_time, so it needs openid) naming only its resource.
    const helper = await authorize('helper', { resource: `${withScopes.url}/mcp` });
    expect([helper?.searchParams.get('error'), helper?.searchParams.has('code')]).toEqual([null, true]);
    // A registration asking for a scope of a resource registered clients may not use is refused.
    const registered = await fetch(`${idp.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [callback], token_endpoint_auth_method: 'none', scope: 'admin' }),
    });
    expect([registered.status, ((await registered.json()) as { error: string }).error]).toEqual([400, 'invalid_client_metadata']);
  });

  it('with scopes the server publishes (the SDK registers and asks for them)', async () => {
    const { text, storage, consentPage } = await connectAndCall(withScopes.url);
    expect(text).toMatch(new RegExp(`^local_\\S+ via ${storage.client?.client_id ?? '?'}$`));
    expect(storage.authorizationUrl?.searchParams.get('scope')).toBe('tools');
    expect(storage.authorizationUrl?.searchParams.get('resource')).toBe(`${withScopes.url}/mcp`);
    expect(consentPage).toContain('SDK Agent');
    // The consent page says what the scope lets the app do, and at which API.
    expect(consentPage).toContain('<li>use the tools of the test server</li>');
    expect(consentPage).toContain(`<p id="resources">at ${withScopes.url}/mcp</p>`);
  });

  it('without published scopes (the SDK sends no scope: the resource gives its own)', async () => {
    const { text, storage } = await connectAndCall(withoutScopes.url);
    expect(text).toMatch(/^local_\S+ via dyn_/);
    expect(storage.authorizationUrl?.searchParams.has('scope')).toBe(false);
  });
});
