import { patternProblem, urlPattern } from '../../src/internal/url-pattern';
import { startIdpApp, type IdpApp } from './idp-helpers';

const LOOPBACK = 'http://127.0.0.1:*/callback';
const AGENTS = 'https://*.agents.example.com/callback';
const APPS = 'https://app*.agents.example.com/callback';

/** Spellings a URL parser and a browser may read as another host, path or port than the text seems to say. */
const TRICKS: ReadonlyArray<readonly [string, string]> = [
  [LOOPBACK, 'http://127.0.0.1:80@evil.example/callback'],
  [LOOPBACK, 'http://127.0.0.1:80\\@evil.example/callback'],
  [LOOPBACK, 'http://127.0.0.1:80%40evil.example/callback'],
  [LOOPBACK, 'http://127.0.0.1:80%2f@evil.example/callback'],
  [LOOPBACK, 'http://evil.example\\@127.0.0.1:80/callback'],
  [LOOPBACK, 'http://user:pw@127.0.0.1:8080/callback'],
  [LOOPBACK, 'http://127.0.0.1:8080/callback#@evil.example'],
  [LOOPBACK, 'http://127.0.0.1:8080/callback/..%2f..%2fevil'],
  [LOOPBACK, 'http://127.0.0.1:8080/x/../callback'],
  [LOOPBACK, 'http://127.0.0.1:8080/callback?next=https://evil.example'],
  [LOOPBACK, 'http://127.0.0.1.evil.example:8080/callback'],
  [LOOPBACK, 'http://0x7f.0.0.1:8080/callback'],
  [LOOPBACK, 'http://127.1:8080/callback'],
  [LOOPBACK, 'http://127.0.0.1:08080/callback'],
  [LOOPBACK, 'http:/\\evil.example/callback'],
  [LOOPBACK, 'HTTP://127.0.0.1:8080/callback'],
  [LOOPBACK, 'http://127.0.0.1:8080/Callback'],
  [LOOPBACK, 'http://127.0.0.1:8080/call\tback'],
  [LOOPBACK, ' http://127.0.0.1:8080/callback'],
  [LOOPBACK, 'https://127.0.0.1:8080/callback'],
  [AGENTS, 'https://a.agents.example.com.evil.example/callback'],
  [AGENTS, 'https://evil.example/.agents.example.com/callback'],
  [AGENTS, 'https://evil.example?.agents.example.com/callback'],
  [AGENTS, 'https://evil.example#.agents.example.com/callback'],
  [AGENTS, 'https://a.b.agents.example.com/callback'],
  [AGENTS, 'https://a%2eevil.agents.example.com/callback'],
  [AGENTS, 'https://x.agents.example.com./callback'],
  [AGENTS, 'https://x.agents.example.com:443/callback'],
  [AGENTS, 'https://X.agents.example.com/callback'],
  [AGENTS, 'https://аpp.agents.example.com/callback'],
  [AGENTS, 'https://x.agents.example.com/callback/../../evil'],
  [AGENTS, 'https://.agents.example.com/callback'],
  [APPS, 'https://app@evil.example/.agents.example.com/callback'],
  [APPS, 'https://app.evil.example\\.agents.example.com/callback'],
  [APPS, 'https://app:x@evil.example/callback'],
  [APPS, 'https://app-1.agents.example.com/callback%23'],
];

describe('URL patterns are matched on parsed URLs (docs/security.md, rule 4)', () => {
  it.each(TRICKS)('%s refuses %j', (pattern, candidate) => {
    expect(urlPattern(pattern).matches(candidate)).toBe(false);
  });

  it.each([
    [LOOPBACK, 'http://127.0.0.1:8080/callback'],
    [LOOPBACK, 'http://127.0.0.1/callback'],
    [AGENTS, 'https://research.agents.example.com/callback'],
    [APPS, 'https://app-7.agents.example.com/callback'],
    ['https://example.com:443/cb', 'https://example.com/cb'],
    ['https://example.com/cb/*', 'https://example.com/cb/abc'],
    ['com.example.app:/oauth', 'com.example.app:/oauth'],
  ])('%s allows %s', (pattern, candidate) => {
    expect(urlPattern(pattern).matches(candidate)).toBe(true);
  });

  it.each([
    ['https://*/cb', 'leaves the host open'],
    ['https://*.com/cb', 'leaves the host open'],
    ['https://example.*/cb', 'leaves the host open'],
    ['https://app.example*.com/cb', 'leaves the host open'],
    ['https://user@example.com/cb', 'is not a URL pattern'],
    ['https://example.com/cb#x', 'is not a URL pattern'],
    ['https://example.com\\cb', 'is not a URL pattern'],
    ['https://example.com/cb?x=*', 'has a * in its query'],
    ['https://example.com/a/../cb', 'has a dot segment'],
    ['http://127.0.0.1:8*/cb', 'port'],
    ['https://*.co.uk/cb', 'leaves the host open'],
    ['https://*.vercel.app/cb', 'leaves the host open'],
    ['https://app*.github.io/cb', 'leaves the host open'],
    ['http://*.0.0.1:*/cb', 'in an address'],
  ])('the pattern %s is refused at start-up: %s', (pattern, problem) => {
    expect(patternProblem(pattern)).toContain(problem);
  });
});

describe('dynamic client registration: redirect, logout and fetched URIs', () => {
  let idp: IdpApp;
  beforeAll(async () => {
    idp = await startIdpApp({ clients: [], registration: { redirectUris: [LOOPBACK, AGENTS, APPS] } });
  });
  afterAll(() => idp.close());

  const register = async (metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${idp.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'], ...metadata }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("the docs' patterns start, and a client registers under each", async () => {
    for (const uri of ['http://127.0.0.1:53682/callback', 'https://research.agents.example.com/callback', 'https://app-2.agents.example.com/callback']) {
      const made = await register({ redirect_uris: [uri], application_type: uri.startsWith('http:') ? 'native' : 'web' });
      expect([uri, made.status]).toEqual([uri, 201]);
    }
  });

  it.each(TRICKS.map(([, candidate]) => candidate))('a redirect URI %j is refused with invalid_redirect_uri', async (uri) => {
    const res = await register({ redirect_uris: [uri], application_type: 'native' });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_redirect_uri']);
  });

  it('post_logout_redirect_uris follow the same patterns: no open redirect from the provider', async () => {
    const base = { redirect_uris: ['https://research.agents.example.com/callback'] };
    const evil = await register({ ...base, post_logout_redirect_uris: ['https://evil.example/bye'] });
    expect([evil.status, evil.body.error]).toEqual([400, 'invalid_client_metadata']);
    expect((await register({ ...base, post_logout_redirect_uris: ['https://research.agents.example.com/callback'] })).status).toBe(201);
  });

  it.each([
    ['jwks_uri', 'https://127.0.0.1/jwks'],
    ['jwks_uri', 'https://[::1]/jwks'],
    ['logo_uri', 'https://169.254.169.254/latest/meta-data'],
    ['client_uri', 'https://localhost/'],
    ['policy_uri', 'https://db.internal/policy'],
    ['tos_uri', 'http://example.com/tos'],
    ['backchannel_logout_uri', 'https://192.168.1.1/logout'],
    ['logo_uri', 'https://intranet/logo.png'],
  ])('%s %j, inside the network, is refused at registration', async (name, value) => {
    const res = await register({ redirect_uris: ['https://research.agents.example.com/callback'], [name]: value });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
  });

  it('request_uris is never kept: the provider fetches no request object by URI', async () => {
    const res = await register({ redirect_uris: ['https://research.agents.example.com/callback'], request_uris: ['https://10.0.0.5/request'] });
    expect(res.status === 400 ? res.body.error : res.body.request_uris).toBe(res.status === 400 ? 'invalid_client_metadata' : undefined);
  });

  it('metadata that is not text answers 400, never a 500: no value is read through its own toString', async () => {
    for (const metadata of [
      { redirect_uris: [{ toString: 1 }] },
      { redirect_uris: ['https://research.agents.example.com/callback'], post_logout_redirect_uris: [{ toString: 1 }] },
      { redirect_uris: ['https://research.agents.example.com/callback'], logo_uri: { toString: 1 } },
    ]) {
      const res = await register(metadata);
      expect([res.status, typeof res.body.error]).toEqual([400, 'string']);
    }
  });

  it('public https URIs of the same fields are kept', async () => {
    const res = await register({
      redirect_uris: ['https://research.agents.example.com/callback'],
      logo_uri: 'https://cdn.example.com/logo.png',
      client_uri: 'https://agents.example.com/',
      tos_uri: 'https://agents.example.com/tos',
    });
    expect(res.status).toBe(201);
  });
});
