import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import request from 'supertest';
import { senderFunc, type DevServer } from '../../src';
import { SECRET, makeApp } from '../support/auth-app';
import { send } from '../support/fuzz';
import { signRaw } from '../support/raw-jwt';

/** How many claim sets the property tries (CLAIMS_RUNS for a longer hunt). */
const CLAIMS_RUNS = Number(process.env.CLAIMS_RUNS ?? 300);

const now = (): number => Math.floor(Date.now() / 1000);
const user = { name: 'shape', id: 'local_dddddddddddddddddddddddddddddddddddddddd', picture: '' };
const good = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ aud: 'authgate', exp: now() + 600, jti: 'j1', user, auth_provider: { name: 'local' }, ...extra });

describe('claims of a correctly signed token are checked for shape', () => {
  const bad: Array<[string, Record<string, unknown>]> = [
    ['user null', good({ user: null })],
    ['user a string', good({ user: 'admin' })],
    ['user an array', good({ user: [user] })],
    ['user.id a number', good({ user: { ...user, id: 42 } })],
    ['user.id empty', good({ user: { ...user, id: '' } })],
    ['user.name missing', good({ user: { id: user.id, picture: '' } })],
    ['user.attrs an array', good({ user: { ...user, attrs: ['admin'] } })],
    ['user.attrs null', good({ user: { ...user, attrs: null } })],
    ['user.role a number', good({ user: { ...user, role: 1 } })],
    ['user.picture an object', good({ user: { ...user, picture: {} } })],
    ['handshake a string', good({ handshake: 'x' })],
    ['handshake.state a number', good({ handshake: { state: 1 } })],
    ['auth_provider a string', good({ auth_provider: 'local' })],
    ['auth_provider.name a number', good({ auth_provider: { name: 1 } })],
    ['sess_only a string', good({ sess_only: 'yes' })],
    ['no-ava a number', good({ 'no-ava': 1 })],
    ['iss a number', good({ iss: 7 })],
    ['exp a string', good({ exp: String(now() + 600) })],
    ['jti a number', good({ jti: 5 })],
    ['aud missing (item 7)', good({ aud: undefined })],
    ['aud null', good({ aud: null })],
  ];

  it.each(bad)('%s: 401 on auth, admin, rbac and /auth/user, anonymous on trace, not logged in on /auth/status', async (_name, claims) => {
    const { app } = makeApp();
    const token = signRaw(claims, SECRET);
    for (const path of ['/private', '/admin', '/hr', '/auth/user']) {
      const res = await request(app).get(path).set('X-JWT', token).expect(401);
      expect(res.body.error).toEqual(expect.any(String));
    }
    expect((await request(app).get('/open').set('X-JWT', token).expect(200)).body).toEqual({ user: null });
    expect((await request(app).get('/auth/status').set('X-JWT', token).expect(200)).body).toEqual({ status: 'not logged in' });
  });

  it('an expired cookie token of a bad shape is not refreshed', async () => {
    const { app } = makeApp();
    const token = signRaw(good({ exp: now() - 10, user: { ...user, attrs: 'x' } }), SECRET);
    const res = await request(app).get('/private').set('Cookie', `JWT=${token}; XSRF-TOKEN=j1`).set('X-XSRF-TOKEN', 'j1').expect(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('a cookie token without jti fails the XSRF check, even with an empty XSRF header', async () => {
    const { app } = makeApp();
    const token = signRaw(good({ jti: undefined }), SECRET);
    const res = await request(app).get('/private').set('Cookie', `JWT=${token}; XSRF-TOKEN=`).set('X-XSRF-TOKEN', '').expect(401);
    expect(res.body.error).toMatch(/^xsrf mismatch/);
    await request(app).get('/private').set('X-JWT', token).expect(200);
  });

  it('a user token without aud is refused, as go-pkgz/auth refuses it; the same token with aud passes', async () => {
    const { app } = makeApp();
    const without = await request(app)
      .get('/private')
      .set('X-JWT', signRaw(good({ aud: undefined }), SECRET))
      .expect(401);
    expect(without.body.error).toBe('a user token needs an aud');
    await request(app).get('/private').set('X-JWT', signRaw(good(), SECRET)).expect(200);
  });

  it('a claimsUpdater that returns a bad shape fails the login with a message naming the claim', async () => {
    const { app } = makeApp({ claimsUpdater: (c) => ({ ...c, user: { ...c.user, attrs: [] } }) as never });
    const res = await request(app).post('/auth/local/login').send({ user: 'a', passwd: 'pw' }).expect(500);
    expect(res.body.error).toBe('claimsUpdater must return claims of the token layout (user.attrs must be an object)');
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

/** Any JSON value, small enough to stay under the token size limit. */
const json = fc.jsonValue({ maxDepth: 3 });
const claimKeys = ['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'user', 'sess_only', 'handshake', 'no-ava', 'auth_provider', 'sub'] as const;

/** Claims that are sometimes well-formed and often not: each known claim absent, right or any JSON. */
const arbitraryClaims = fc.record(
  Object.fromEntries(
    claimKeys.map((k) => [
      k,
      fc.oneof(
        fc.constant(undefined),
        json,
        fc.constant(good()[k]),
        k === 'user'
          ? fc.record(
              { id: fc.oneof(fc.string(), json), name: fc.oneof(fc.string(), json), attrs: fc.oneof(json, fc.dictionary(fc.string(), json)), role: fc.oneof(fc.string(), json) },
              { requiredKeys: [] },
            )
          : json,
      ),
    ]),
  ) as Record<(typeof claimKeys)[number], fc.Arbitrary<unknown>>,
  { requiredKeys: [] },
);

describe('property: thousands of correctly signed tokens with arbitrary claims', () => {
  let dev: DevServer;
  afterAll(() => dev?.stop());

  it('never answer 5xx on any middleware or route, whatever the claims and wherever the token is', async () => {
    const { app } = makeApp({ rateLimits: false }, (a) => {
      dev = a.addDevProvider({ port: 0 });
      a.addVerifyProvider(
        'email',
        'token {{.Token}}',
        senderFunc(() => undefined),
      );
    });
    await dev.start();
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const routes = [
      '/private',
      '/open',
      '/admin',
      '/hr',
      '/auth/user',
      '/auth/status',
      '/auth/logout',
      '/auth/local/logout',
      '/auth/dev/callback?state=s&code=c',
      '/auth/email/login?token=',
      '/auth/dev/login',
    ];
    let requests = 0;
    try {
      await fc.assert(
        fc.asyncProperty(arbitraryClaims, fc.constantFrom('cookie', 'header', 'query'), fc.boolean(), async (claims, where, expired) => {
          if (expired && typeof claims.exp === 'number') claims.exp = now() - 30;
          const token = signRaw(claims, SECRET);
          const jti = typeof claims.jti === 'string' ? encodeURIComponent(claims.jti) : 'x';
          const results = await Promise.all(
            routes.map((route) => {
              const path = route.endsWith('token=') ? route + token : where === 'query' ? `${route}${route.includes('?') ? '&' : '?'}token=${token}` : route;
              const headers: Record<string, string> = where === 'header' ? { 'x-jwt': token } : where === 'cookie' ? { cookie: `JWT=${token}; XSRF-TOKEN=${jti}`, 'x-xsrf-token': jti } : {};
              return send(port, agent, { method: 'GET', path, headers, body: undefined }).then((r) => ({ route, ...r }));
            }),
          );
          requests += results.length;
          for (const r of results) if (r.status >= 500 || r.status === 0) throw new Error(`${r.route} answered ${r.status} for ${JSON.stringify(claims)} in the ${where}`);
        }),
        { numRuns: CLAIMS_RUNS, seed: Number(process.env.CLAIMS_SEED ?? 20261123) },
      );
    } finally {
      agent.destroy();
      server.close();
    }
    expect(requests).toBeGreaterThanOrEqual(CLAIMS_RUNS * routes.length);
  }, 300_000);
});
