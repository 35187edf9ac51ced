import { KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt as joseDecode, type CryptoKey, type JWK } from 'jose';
import request from 'supertest';
import { createAuth, hashId } from '../../src';
import { makeApp, SECRET, type TestApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { callback, startLogin } from '../support/oauth-flow';
import { followToApp, startOidcPeer, type OidcPeer, type OidcPeerOptions } from '../support/oidc-peer';
import { freePort } from '../support/ports';

const APP = 'http://127.0.0.1:8080';

/** A signing key of the identity provider: the private JWK (for the peer) and the key (for forging in tests). */
async function signingKey(kid: string): Promise<{ jwk: JWK; key: CryptoKey }> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }, key: privateKey };
}

/**
 * A proxy in front of oidc-provider (the issuer is the proxy's URL): passes everything through,
 * and can replace the id_token of the token answer, or break discovery.
 */
class IdpProxy {
  tamper: ((payload: Record<string, unknown>) => Promise<string>) | undefined;
  /** How the last token request authenticated the client. */
  lastTokenAuth: string | undefined;
  discovery: 'ok' | 'down' | 'garbage' = 'ok';
  discoveryFetches = 0;
  readonly server = http.createServer((req, res) => void this.handle(req, res));
  upstream = 0;

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if ((req.url ?? '').startsWith('/.well-known/openid-configuration')) {
      this.discoveryFetches++;
      if (this.discovery === 'down') return void res.writeHead(502).end('bad gateway');
      if (this.discovery === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer": 42, "authorization_endpoint": "javascript:alert(1)"}');
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // http.request, not fetch: the Host header must stay the proxy's (oidc-provider builds its URLs from it).
    if (req.url?.startsWith('/token')) {
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      this.lastTokenAuth = /^Basic /.test(req.headers.authorization ?? '') ? 'basic' : form.has('client_secret') ? 'post' : form.has('client_assertion') ? 'jwt' : 'none';
    }
    const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const up = http.request({ host: '127.0.0.1', port: this.upstream, method: req.method, path: req.url, headers: req.headers }, resolve);
      up.on('error', reject);
      up.end(Buffer.concat(chunks));
    });
    const parts: Buffer[] = [];
    for await (const chunk of answer) parts.push(chunk as Buffer);
    let body = Buffer.concat(parts);
    const headers = { ...answer.headers };
    if (req.url?.startsWith('/token') && answer.statusCode === 200 && this.tamper) {
      const tokens = JSON.parse(body.toString()) as { id_token: string };
      tokens.id_token = await this.tamper(joseDecode(tokens.id_token) as Record<string, unknown>);
      body = Buffer.from(JSON.stringify(tokens));
      headers['content-length'] = String(body.length);
    }
    res.writeHead(answer.statusCode ?? 502, headers).end(body);
  }
}

async function login(t: TestApp, provider: string): Promise<request.Response> {
  const { location, handshake } = await startLogin(t.app, provider, '?from=/home');
  return callback(t.app, await followToApp(location, APP), handshake);
}

describe('OpenID Connect provider against oidc-provider (discovery, verified id_tokens)', () => {
  const proxy = new IdpProxy();
  let peer: OidcPeer;
  let issuer: string;
  let k1: { jwk: JWK; key: CryptoKey };
  let t: TestApp;
  const peerOptions = (): OidcPeerOptions => ({ issuer, port: proxy.upstream, tokenEndpointAuthMethod: 'client_secret_basic', signingKeys: [k1.jwk], postLogoutRedirectUris: [`${APP}/bye`] });
  const redirects = [`${APP}/auth/corp/callback`, `${APP}/auth/fresh/callback`, `${APP}/auth/mapped/callback`];

  beforeAll(async () => {
    issuer = await proxy.listen();
    proxy.upstream = await freePort();
    k1 = await signingKey('k1');
    peer = await startOidcPeer(redirects, 'alice', peerOptions());
    t = makeApp({}, (auth) => {
      auth.addOidcProvider('corp', { issuer, clientId: peer.clientId, clientSecret: peer.clientSecret, postLogoutRedirectUri: `${APP}/bye`, keysCooldownMs: 0 });
      auth.addOidcProvider('mapped', {
        issuer,
        clientId: peer.clientId,
        clientSecret: peer.clientSecret,
        mapUser: (claims) => ({
          id: hashId('mapped', String(claims.preferred_username)),
          name: `user ${String(claims.preferred_username)}`,
          picture: '',
          attrs: { verified: claims.email_verified === true },
        }),
      });
    });
  }, 60_000);
  afterAll(async () => {
    await peer?.stop();
    proxy.server.close();
  });
  afterEach(() => {
    proxy.tamper = undefined;
    proxy.discovery = 'ok';
  });

  it('logs in: discovery, PKCE S256, state and nonce in the handshake, verified id_token, user info, session', async () => {
    const { location, handshake } = await startLogin(t.app, 'corp', '?from=/home');
    expect(location.origin + location.pathname).toBe(`${issuer}/auth`);
    expect(location.searchParams.get('scope')).toBe('openid profile email');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('nonce')).toMatch(/^[0-9a-f]{32}$/);
    const res = await callback(t.app, await followToApp(location, APP), handshake).expect(303);
    expect(res.headers.location).toBe('/home');
    expect(proxy.lastTokenAuth).toBe('basic');
    const cookies = setCookies(res);
    const me = await request(t.app).get('/auth/user').set('Cookie', `JWT=${cookies.JWT!.value}`).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(200);
    expect(me.body).toMatchObject({ id: hashId('corp', 'alice'), name: 'Alice Liddell', email: 'alice@example.com' });
    // The replayed callback is refused.
    await callback(t.app, await followToApp(location, APP).catch(() => location), handshake).expect(403);
    const mapped = await login(t, 'mapped');
    expect(mapped.status).toBe(303);
    const mappedCookies = setCookies(mapped);
    const mappedUser = await request(t.app).get('/auth/user').set('Cookie', `JWT=${mappedCookies.JWT!.value}`).set('X-XSRF-TOKEN', mappedCookies['XSRF-TOKEN']!.value).expect(200);
    expect(mappedUser.body).toMatchObject({ id: hashId('mapped', 'alice'), name: 'user alice', attrs: { verified: true } });
  });

  it('refuses id_tokens with a wrong nonce, issuer, audience, azp, expiry, alg none or an unknown key, without a session', async () => {
    const resign =
      (change: (p: Record<string, unknown>) => Record<string, unknown>, key = k1.key, kid = 'k1') =>
      async (p: Record<string, unknown>) =>
        new SignJWT(change(p)).setProtectedHeader({ alg: 'RS256', kid }).sign(key);
    const stranger = await signingKey('unknown');
    const cases: Array<[string, IdpProxy['tamper'], RegExp]> = [
      ['untouched but re-signed', resign((p) => p), /^$/],
      ['nonce', resign((p) => ({ ...p, nonce: 'another-nonce' })), /nonce/],
      ['issuer', resign((p) => ({ ...p, iss: 'https://evil.example' })), /iss/],
      ['audience', resign((p) => ({ ...p, aud: 'another-client' })), /aud/],
      ['azp', resign((p) => ({ ...p, aud: [String(p.aud), 'another-client'] })), /azp/],
      ['expired', resign((p) => ({ ...p, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 })), /exp/],
      ['iat ahead', resign((p) => ({ ...p, iat: Math.floor(Date.now() / 1000) + 3600, exp: Math.floor(Date.now() / 1000) + 7200 })), /future|iat/],
      ['alg none', async (p) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.`, /alg|none|algorithm/i],
      ['unknown key', resign((p) => p, stranger.key, 'unknown'), /key|JWKS/i],
      ['known kid, wrong key', resign((p) => p, stranger.key, 'k1'), /signature/i],
    ];
    for (const [name, tamper, why] of cases) {
      proxy.tamper = tamper;
      const res = await login(t, 'corp');
      if (name === 'untouched but re-signed') {
        expect(res.status).toBe(303);
        continue;
      }
      expect({ name, status: res.status }).toEqual({ name, status: 403 });
      expect(res.body.error).toMatch(why);
      expect(setCookies(res)['XSRF-TOKEN']).toBeUndefined();
    }
  });

  it("refuses a handshake started at another provider's login (mix-up) and an answer naming another issuer (RFC 9207), and the login still completes after", async () => {
    const { location, handshake } = await startLogin(t.app, 'corp', '?from=/home');
    const answer = await followToApp(location, APP);
    expect(answer.searchParams.get('iss')).toBe(issuer);
    const elsewhere = new URL(answer.href);
    elsewhere.pathname = '/auth/mapped/callback';
    const mixed = await callback(t.app, elsewhere, handshake).expect(403);
    expect(mixed.body.error).toMatch(/another provider/);
    expect(setCookies(mixed)['XSRF-TOKEN']).toBeUndefined();
    for (const iss of ['https://evil.example', null]) {
      const forged = new URL(answer.href);
      if (iss === null) forged.searchParams.delete('iss');
      else forged.searchParams.set('iss', iss);
      const refused = await callback(t.app, forged, handshake).expect(403);
      expect(refused.body.error).toMatch(/another issuer/);
    }
    // The refusals burnt nothing: the genuine answer completes the login.
    expect((await callback(t.app, answer, handshake)).status).toBe(303);
  });

  it('keeps logging in when the provider rotates its signing key, and ends the provider session on logout', async () => {
    expect((await login(t, 'corp')).status).toBe(303);
    await peer.stop();
    const k2 = await signingKey('k2');
    peer = await startOidcPeer(redirects, 'alice', { ...peerOptions(), signingKeys: [k2.jwk] });
    const res = await login(t, 'corp');
    expect(res.status).toBe(303);
    const cookies = setCookies(res);
    const out = await request(t.app).get('/auth/corp/logout').set('Cookie', `JWT=${cookies.JWT!.value}`).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(302);
    const end = new URL(out.headers.location as string);
    expect(end.origin).toBe(issuer);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${APP}/bye`);
    expect(end.searchParams.get('client_id')).toBe(peer.clientId);
    expect(setCookies(out).JWT?.value).toBe('');
    await request(t.app).get('/auth/user').set('Cookie', `JWT=${cookies.JWT!.value}`).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(200);
  });

  it('answers 503 JSON when discovery is unreachable or malformed, and the next login tries again', async () => {
    const fresh = makeApp({}, (auth) => {
      auth.addOidcProvider('fresh', { issuer, clientId: peer.clientId, clientSecret: peer.clientSecret });
    });
    proxy.discovery = 'down';
    const down = await request(fresh.app).get('/auth/fresh/login').expect(503);
    expect(down.body.error).toMatch(/discovery/);
    expect(setCookies(down).JWT).toBeUndefined();
    proxy.discovery = 'garbage';
    expect((await request(fresh.app).get('/auth/fresh/login').expect(503)).body.error).toMatch(/issuer/);
    proxy.discovery = 'ok';
    const before = proxy.discoveryFetches;
    await request(fresh.app).get('/auth/fresh/login').expect(302);
    await request(fresh.app).get('/auth/fresh/login').expect(302);
    expect(proxy.discoveryFetches).toBe(before + 1);
    await fresh.auth.close();
  });
});

describe('OpenID Connect client authentication', () => {
  it('client_secret_post and private_key_jwt log in; bad options fail at start-up', async () => {
    const post = await startOidcPeer([`${APP}/auth/idp/callback`], 'bob', { tokenEndpointAuthMethod: 'client_secret_post' });
    try {
      const t = makeApp({}, (auth) => {
        auth.addOidcProvider('idp', { issuer: post.issuer, clientId: post.clientId, clientSecret: post.clientSecret, clientAuth: 'client_secret_post' });
      });
      expect((await login(t, 'idp')).status).toBe(303);
      const wrongSecret = makeApp({}, (auth) => {
        auth.addOidcProvider('idp', { issuer: post.issuer, clientId: post.clientId, clientSecret: 'not-the-secret', clientAuth: 'client_secret_post' });
      });
      const refused = await login(wrongSecret, 'idp');
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/refused the code/);
      expect(setCookies(refused)['XSRF-TOKEN']).toBeUndefined();
    } finally {
      await post.stop();
    }

    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwt = await startOidcPeer([`${APP}/auth/idp/callback`], 'carol', {
      tokenEndpointAuthMethod: 'private_key_jwt',
      clientJwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'client-1', alg: 'ES256', use: 'sig' }] },
    });
    try {
      const t = makeApp({}, (auth) => {
        auth.addOidcProvider('idp', { issuer: jwt.issuer, clientId: jwt.clientId, privateKey: KeyObject.from(privateKey), privateKeyId: 'client-1' });
      });
      const res = await login(t, 'idp');
      expect(res.status).toBe(303);
    } finally {
      await jwt.stop();
    }

    const auth = createAuth({ url: APP, secret: SECRET });
    expect(() => auth.addOidcProvider('a', { issuer: 'not a url', clientId: 'x', clientSecret: 'y' })).toThrow(/issuer/);
    expect(() => auth.addOidcProvider('b', { issuer: 'https://id.example', clientId: '', clientSecret: 'y' })).toThrow(/clientId/);
    expect(() => auth.addOidcProvider('c', { issuer: 'https://id.example', clientId: 'x' })).toThrow(/clientSecret/);
    expect(() => auth.addOidcProvider('d', { issuer: 'https://id.example', clientId: 'x', clientAuth: 'private_key_jwt' })).toThrow(/privateKey/);
    await auth.close();
  }, 60_000);
});
