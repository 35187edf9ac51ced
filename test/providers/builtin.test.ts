import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUILTIN_PROVIDER_NAMES, createAuth, hashId, type DevServer } from '../../src';
import { BUILTIN_PROVIDERS } from '../../src/providers/builtin/builtin-providers';
import { SECRET, makeApp, type TestApp } from '../support/auth-app';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';

/** User-info responses in each provider's documented shape. */
const INFO: Record<string, unknown> = {
  github: { login: 'octocat', id: 583231, name: 'The Octocat', avatar_url: 'https://avatars.githubusercontent.com/u/583231?v=4', email: 'octo@github.example' },
  google: { sub: '110169484474386276334', name: 'Jane Doe', given_name: 'Jane', picture: 'https://lh3.googleusercontent.com/a/x', email: 'jane@gmail.example' },
  facebook: { id: '10158223', name: 'Fay Book', picture: { data: { url: 'https://platform-lookaside.fbsbx.com/p.jpg', width: 50, height: 50 } } },
  microsoft: { id: '87d349ed-44d7-43e1-9a83-5f2406dee5bd', displayName: 'Megan Bowen', userPrincipalName: 'megan@contoso.example', mail: 'megan@contoso.example' },
  yandex: { id: '1000034426', login: 'ivan', display_name: '', real_name: 'Ivan Ivanov', default_avatar_id: '131652443', is_avatar_empty: false, default_email: 'ivan@yandex.example' },
  battlenet: { sub: '12345678', id: 12345678, battletag: 'Player#1234' },
  patreon: {
    data: { id: '2822191', type: 'user', attributes: { full_name: 'Pat Ron', image_url: 'https://c8.patreon.com/2/200/2822191', email: 'pat@patreon.example' } },
    included: [{ id: 'm1', type: 'member', attributes: { patron_status: 'active_patron' } }],
  },
  discord: { id: '80351110224678912', username: 'nelly', global_name: 'Nelly', avatar: '8342729096ea3675442027381ff50dfe' },
  twitter: { data: { id: '2244994945', name: 'X Dev', username: 'XDevelopers', profile_image_url: 'https://pbs.twimg.com/p.jpg' } },
};

const EXPECTED: Record<string, { rawId: string; name: string; picture?: string; email?: string; attrs?: Record<string, unknown> }> = {
  github: { rawId: 'octocat', name: 'The Octocat', email: 'octo@github.example' },
  google: { rawId: '110169484474386276334', name: 'Jane Doe', email: 'jane@gmail.example' },
  facebook: { rawId: '10158223', name: 'Fay Book' },
  microsoft: { rawId: '87d349ed-44d7-43e1-9a83-5f2406dee5bd', name: 'Megan Bowen', email: 'megan@contoso.example' },
  yandex: { rawId: '1000034426', name: 'Ivan Ivanov', email: 'ivan@yandex.example' },
  battlenet: { rawId: '12345678', name: 'Player#1234' },
  patreon: { rawId: '2822191', name: 'Pat Ron', email: 'pat@patreon.example', attrs: { is_paid_sub: true } },
  discord: { rawId: '80351110224678912', name: 'Nelly' },
  twitter: { rawId: '2244994945', name: 'X Dev' },
};

describe('built-in providers', () => {
  let dev: DevServer;
  let stub: http.Server;
  let stubUrl: string;
  let made: TestApp;
  const tokenRequests: Array<{ path: string; authorization: string | undefined; body: string }> = [];

  beforeAll(async () => {
    stub = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const [, kind, name = ''] = (req.url ?? '').split('/');
        res.setHeader('Content-Type', 'application/json');
        if (kind === 'token') {
          tokenRequests.push({ path: name, authorization: req.headers.authorization, body });
          return res.end(JSON.stringify({ access_token: `token-for-${name}`, token_type: 'bearer' }));
        }
        if (req.headers.authorization !== `Bearer token-for-${name}`) {
          res.statusCode = 401;
          return res.end('{}');
        }
        return res.end(JSON.stringify(INFO[name]));
      });
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
    made = makeApp({}, (auth) => {
      dev = auth.addDevProvider({ port: 0 });
      for (const name of Object.keys(INFO)) {
        auth.addProvider(name, `cid-${name}`, `secret-${name}`, {
          authUrl: 'http://placeholder.invalid/authorize',
          tokenUrl: `${stubUrl}/token/${name}`,
          infoUrl: `${stubUrl}/info/${name}`,
        });
      }
    });
    await dev.start();
  });
  afterAll(async () => {
    await dev.stop();
    await new Promise((r) => stub.close(r));
  });

  it.each(Object.keys(INFO))('%s maps its documented user info', async (name) => {
    const { location, handshake } = await startLogin(made.app, name);
    expect(location.origin).toBe('http://placeholder.invalid');
    // The dev server plays the authorization page; the stub plays token and user-info endpoints.
    const devLocation = new URL(`${dev.url}/login/oauth/authorize${location.search}`);
    const res = await callback(made.app, await devAuthorize(devLocation, 'ignored'), handshake).expect(200);
    const want = EXPECTED[name]!;
    expect(res.body.id).toBe(hashId(name, want.rawId));
    expect(res.body.name).toBe(want.name);
    if (want.email) expect(res.body.email).toBe(want.email);
    if (want.attrs) expect(res.body.attrs).toEqual(want.attrs);
    const token = tokenRequests.filter((t) => t.path === name).at(-1)!;
    if (name === 'twitter') {
      expect(token.authorization).toBe(`Basic ${Buffer.from('cid-twitter:secret-twitter').toString('base64')}`);
    } else {
      expect(new URLSearchParams(token.body).get('client_secret')).toBe(`secret-${name}`);
    }
    expect(new URLSearchParams(token.body).get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a replayed callback even when the provider would accept the code again', async () => {
    const { location, handshake } = await startLogin(made.app, 'github');
    const cb = await devAuthorize(new URL(`${dev.url}/login/oauth/authorize${location.search}`), 'x');
    await callback(made.app, cb, handshake).expect(200);
    const before = tokenRequests.length;
    const replay = await callback(made.app, cb, handshake).expect(403);
    expect(replay.body.error).toMatch(/already completed/);
    expect(tokenRequests.length).toBe(before + 1);
  });

  it('github can use the immutable numeric id, hashed as gid:<id> like go-pkgz/auth', async () => {
    const app = makeApp({}, (auth) => {
      auth.addProvider('github', 'c', 's', { tokenUrl: `${stubUrl}/token/github`, infoUrl: `${stubUrl}/info/github`, useNumericId: true });
    });
    const { location, handshake } = await startLogin(app.app, 'github');
    const res = await callback(app.app, await devAuthorize(new URL(`${dev.url}/login/oauth/authorize${location.search}`), 'x'), handshake).expect(200);
    expect(res.body.id).toBe(hashId('github', 'gid:583231'));
  });

  it('names fall back to noname_<hex> when the provider gives none', () => {
    const { toUser } = jest.requireActual('../../src/providers/oauth2/profile') as typeof import('../../src/providers/oauth2/profile');
    expect(toUser('x', { id: '42', name: '  ' }).name).toMatch(/^noname_[0-9a-f]{8}$/);
  });

  it('refuses unknown built-ins, built-in names for custom providers, missing credentials and bad tenants', () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    expect(() => auth.addProvider('myspace', 'c', 's')).toThrow(/not a built-in provider/);
    expect(() => auth.addProvider('github', '', 's')).toThrow(/client id and secret/);
    expect(() => auth.addProvider('microsoft', 'c', 's', { tenant: 'bad/tenant' })).toThrow(/tenant/);
    auth.addProvider('microsoft', 'c', 's', { tenant: 'contoso.onmicrosoft.com' });
    expect([...BUILTIN_PROVIDERS.keys(), 'dev'].sort()).toEqual([...BUILTIN_PROVIDER_NAMES].sort());
    for (const name of BUILTIN_PROVIDER_NAMES) {
      expect(() =>
        auth.addCustomProvider(name, { cid: 'c', csecret: 's' }, { authUrl: 'http://a', tokenUrl: 'http://a', infoUrl: 'http://a', mapUser: () => ({ id: 'i', name: 'n', picture: '' }) }),
      ).toThrow(/built-in/);
    }
    expect(() =>
      auth.addCustomProvider('corp', { cid: 'c', csecret: 's' }, { authUrl: 'nope', tokenUrl: 'http://a', infoUrl: 'http://a', mapUser: () => ({ id: 'i', name: 'n', picture: '' }) }),
    ).toThrow(/absolute URL/);
  });

  it('registers several clients of one custom provider under different names', () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    const config = { authUrl: 'http://a/auth', tokenUrl: 'http://a/token', infoUrl: 'http://a/me', mapUser: () => ({ id: 'i', name: 'n', picture: '' }) };
    auth.addCustomProvider('corp-eu', { cid: 'eu', csecret: 's' }, config).addCustomProvider('corp-us', { cid: 'us', csecret: 's' }, config);
    expect(auth.providerNames()).toEqual(['corp-eu', 'corp-us']);
  });
});
