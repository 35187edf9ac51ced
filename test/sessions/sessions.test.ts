import jwt from 'jsonwebtoken';
import request from 'supertest';
import { MemoryRefreshCache, MemoryStateStore, type Auth, type AuthOptions } from '../../src';
import { SECRET, login, makeApp, type TestApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { faulty } from '../support/faulty';
import { summarizeUserAgent } from '../../src/core/sessions/user-agent';
import { jtiHash } from '../../src/core/sessions/session-registry';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until the token's `exp` (whole seconds) has passed. */
async function untilExpired(token: string): Promise<void> {
  const exp = decodeJwt(token).payload.exp as number;
  await sleep(Math.max(0, exp * 1000 - Date.now() + 50));
}

const apps: TestApp[] = [];
function app(options: Partial<AuthOptions> = {}, setup?: (auth: Auth) => void): TestApp {
  const made = makeApp(options, setup);
  apps.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(apps.splice(0).map(({ auth }) => auth.close()));
});

const get = (t: TestApp, path: string, s: { cookie: string; xsrf: string }): request.Test => request(t.app).get(path).set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf);
const post = (t: TestApp, path: string, s: { cookie: string; xsrf: string }): request.Test => request(t.app).post(path).set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf);

describe('session registry', () => {
  it('records every login as a session with a fresh jti; the list marks the current one and never shows a jti', async () => {
    const t = app();
    const first = await login(t.app, 'alice');
    const second = await login(t.app, 'alice');
    expect(first.xsrf).not.toBe(second.xsrf);
    expect(decodeJwt(first.jwt).payload.jti).toBe(first.xsrf);
    const res = await get(t, '/auth/sessions', second).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const list = res.body as Array<Record<string, unknown>>;
    expect(list).toHaveLength(2);
    expect(list.map((s) => s.current)).toEqual([true, false]);
    const userId = (second.body as { id: string }).id;
    for (const s of list) {
      expect(Object.keys(s).sort()).toEqual(['aud', 'created', 'current', 'expires', 'id', 'ipHash', 'provider', 'refreshed', 'userAgent', 'userId']);
      expect(s).toMatchObject({ userId, provider: 'local', aud: 'authgate' });
      expect(s.id).toMatch(/^[0-9a-f]{32}$/);
      expect(JSON.stringify(s)).not.toContain(first.xsrf);
      expect(JSON.stringify(s)).not.toContain(second.xsrf);
      expect(s.ipHash).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(s.userAgent).toBe('unknown');
      expect(s.expires as number).toBeGreaterThan(Date.now() + 30 * 86_400_000);
    }
    expect(list[0]?.ipHash).toBe(list[1]?.ipHash);
    // Another user sees only his own.
    const bob = await login(t.app, 'bob');
    const bobs = await get(t, '/auth/sessions', bob).expect(200);
    expect((bobs.body as unknown[]).length).toBe(1);
    expect(await t.auth.sessions.list(userId)).toHaveLength(2);
  });

  it("'refresh' mode: a cookie copied before logout keeps working only until its token expires, then is refused and never refreshed", async () => {
    // exp is in whole seconds: 3 s leave the token at least 2 s for the logout and the next request.
    const t = app({ tokenDuration: 3000 });
    const s = await login(t.app);
    await get(t, '/auth/logout', s).expect(200);
    // Stateless until the refresh: no store call on the hot path.
    await get(t, '/private', s).expect(200);
    await untilExpired(s.jwt);
    const refused = await get(t, '/private', s).expect(401);
    expect(refused.body).toEqual({ error: 'the session was revoked', code: 'session_revoked' });
    expect(setCookies(refused).JWT?.value).toBe('');
    expect(await t.auth.sessions.list((s.body as { id: string }).id)).toEqual([]);
  });

  it("'every-request' mode: a cookie copied before logout is refused at once, by cookie and by X-JWT header", async () => {
    const t = app({ revocationCheck: 'every-request' });
    const s = await login(t.app);
    await get(t, '/private', s).expect(200);
    await request(t.app).get('/private').set('X-JWT', s.jwt).expect(200);
    await get(t, '/auth/status', s).expect(200, { status: 'logged in', user: 'alice' });
    await get(t, '/auth/logout', s).expect(200);
    await get(t, '/private', s).expect(401);
    await get(t, '/auth/status', s).expect(200, { status: 'not logged in' });
    await request(t.app).get('/private').set('X-JWT', s.jwt).expect(401);
    await request(t.app).get('/auth/user').set('X-JWT', s.jwt).expect(401);
  });

  it('refreshes a session once: the old token gets the same new token while cached, and 401 after', async () => {
    const t = app({ tokenDuration: 1000, refreshCache: new MemoryRefreshCache(100, 300) });
    const s = await login(t.app);
    await untilExpired(s.jwt);
    const [a, b] = await Promise.all([get(t, '/private', s), get(t, '/private', s)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const fresh = setCookies(a).JWT?.value;
    expect(fresh).toBeTruthy();
    expect(setCookies(b).JWT?.value).toBe(fresh);
    expect(decodeJwt(fresh as string).payload.jti).toBe(s.xsrf);
    await sleep(350);
    const replay = await get(t, '/private', s).expect(401);
    expect(setCookies(replay).JWT?.value).toBe('');
    // The new token is the session now, refreshed once more when it expires.
    const next = { cookie: `JWT=${fresh}; XSRF-TOKEN=${s.xsrf}`, xsrf: s.xsrf };
    await untilExpired(fresh as string);
    const again = await get(t, '/private', next).expect(200);
    expect(setCookies(again).JWT?.value).not.toBe(fresh);
    const list = await t.auth.sessions.list((s.body as { id: string }).id);
    expect(list).toHaveLength(1);
    expect(list[0]!.refreshed).toBeGreaterThan(list[0]!.created);
  });

  it('a session revoked while its token is being refreshed stays revoked', async () => {
    let revokeDuringRefresh = false;
    const t: TestApp = app({
      tokenDuration: 1000,
      claimsUpdater: async (claims) => {
        if (revokeDuringRefresh) await t.auth.sessions.revoke(claims.jti as string);
        return claims;
      },
    });
    const s = await login(t.app);
    await untilExpired(s.jwt);
    revokeDuringRefresh = true;
    await get(t, '/private', s).expect(401);
    revokeDuringRefresh = false;
    await get(t, '/private', s).expect(401);
    expect(await t.auth.sessions.list((s.body as { id: string }).id)).toEqual([]);
  });

  it('revoke-others keeps the current session; revoke by id ends one; revoke-all ends every one and clears the cookies', async () => {
    const t = app({ revocationCheck: 'every-request' });
    const [one, two, three] = [await login(t.app), await login(t.app), await login(t.app)];
    const others = await post(t, '/auth/sessions/revoke-others', two).expect(200);
    expect(others.body).toEqual({ revoked: 2 });
    expect(setCookies(others).JWT).toBeUndefined();
    await get(t, '/private', one).expect(401);
    await get(t, '/private', three).expect(401);
    await get(t, '/private', two).expect(200);

    const four = await login(t.app);
    const list = (await get(t, '/auth/sessions', two).expect(200)).body as Array<{ id: string; current: boolean }>;
    const other = list.find((x) => !x.current)!;
    expect(await post(t, `/auth/sessions/${other.id}/revoke`, two).expect(200)).toHaveProperty('body', { revoked: 1 });
    await get(t, '/private', four).expect(401);
    await post(t, `/auth/sessions/${other.id}/revoke`, two).expect(404, { error: 'no such session', code: 'not_found' });

    const current = list.find((x) => x.current)!;
    const self = await post(t, `/auth/sessions/${current.id}/revoke`, two).expect(200);
    expect(setCookies(self).JWT?.value).toBe('');
    await get(t, '/private', two).expect(401);

    const five = await login(t.app);
    await login(t.app);
    const all = await post(t, '/auth/sessions/revoke-all', five).expect(200);
    expect(all.body).toEqual({ revoked: 2 });
    expect(setCookies(all).JWT?.value).toBe('');
    await get(t, '/private', five).expect(401);
  });

  it('a user cannot see or end the sessions of another; an admin can end all sessions of a user', async () => {
    const t = app({ revocationCheck: 'every-request', claimsUpdater: (c) => (c.user?.name === 'root' ? { ...c, user: { ...c.user, attrs: { admin: true } } } : c) });
    const alice = await login(t.app, 'alice');
    const mallory = await login(t.app, 'mallory');
    const root = await login(t.app, 'root');
    const [aliceSession] = (await get(t, '/auth/sessions', alice).expect(200)).body as Array<{ id: string }>;
    await post(t, `/auth/sessions/${aliceSession!.id}/revoke`, mallory).expect(404);
    const aliceId = (alice.body as { id: string }).id;
    await post(t, '/auth/sessions/revoke-all', mallory).send({ user: aliceId }).expect(403, { error: "only an admin may end another user's sessions", code: 'forbidden' });
    await get(t, '/private', alice).expect(200);
    const byAdmin = await post(t, '/auth/sessions/revoke-all', root).send({ user: aliceId }).expect(200);
    expect(byAdmin.body).toEqual({ revoked: 1 });
    expect(setCookies(byAdmin).JWT).toBeUndefined();
    await get(t, '/private', alice).expect(401);
    await get(t, '/private', root).expect(200);
  });

  it('answers bad ids, methods, missing XSRF, cross-site writes and anonymous callers with 4xx JSON, revoking nothing', async () => {
    const t = app({ revocationCheck: 'every-request' });
    const s = await login(t.app);
    for (const id of ['short', 'x'.repeat(65), 'bad%20id', '..', '%00'.repeat(8) + 'aaaaaaaaaaaaaaaa']) {
      const res = await post(t, `/auth/sessions/${id}/revoke`, s);
      expect([400, 404]).toContain(res.status);
      expect(res.body).toHaveProperty('error');
    }
    await post(t, '/auth/sessions/revoke-all', s)
      .send({ user: ['x'] })
      .expect(400, { error: 'user must be a user id', code: 'bad_request' });
    await post(t, '/auth/sessions/revoke-all', s).send({ user: 'a\u0000b' }).expect(400);
    await get(t, '/auth/sessions/revoke-others', s).expect(405).expect('Allow', 'POST');
    await post(t, '/auth/sessions', s).expect(405).expect('Allow', 'GET');
    await request(t.app).post('/auth/sessions/revoke-others').set('Cookie', s.cookie).expect(401);
    await post(t, '/auth/sessions/revoke-others', s).set('Origin', 'https://evil.example').expect(403);
    await request(t.app).get('/auth/sessions').expect(401, { error: 'token not found', code: 'token_missing' });
    await request(t.app).get('/auth/sessions').auth('admin', 'x').expect(401);
    await get(t, '/private', s).expect(200);
    expect(await t.auth.sessions.list((s.body as { id: string }).id)).toHaveLength(1);
  });

  it('keeps at most maxSessionsPerUser sessions: a login past it revokes the oldest', async () => {
    const t = app({ revocationCheck: 'every-request', maxSessionsPerUser: 2 });
    const first = await login(t.app);
    await sleep(5);
    const second = await login(t.app);
    await sleep(5);
    const third = await login(t.app);
    await get(t, '/private', first).expect(401);
    await get(t, '/private', second).expect(200);
    await get(t, '/private', third).expect(200);
    expect(await t.auth.sessions.list((first.body as { id: string }).id)).toHaveLength(2);
  });

  it("tokens of no recorded session (go-pkgz/auth's) are accepted by default, refused with unknownSessions: 'reject', and can be logged out", async () => {
    const now = Math.floor(Date.now() / 1000);
    const user = { name: 'gopher', id: 'local_0123456789abcdef0123456789abcdef01234567', picture: '' };
    const foreign = jwt.sign({ aud: 'authgate', exp: now + 600, iat: now, jti: 'go-jti', user, auth_provider: { name: 'local' } }, SECRET, { algorithm: 'HS256' });
    const expired = jwt.sign({ aud: 'authgate', exp: now - 5, iat: now - 600, jti: 'go-jti-2', user, auth_provider: { name: 'local' } }, SECRET, { algorithm: 'HS256' });
    const s = (token: string, xsrf: string): { cookie: string; xsrf: string } => ({ cookie: `JWT=${token}`, xsrf });

    const accept = app({ revocationCheck: 'every-request' });
    await get(accept, '/private', s(foreign, 'go-jti')).expect(200);
    const refreshed = await get(accept, '/private', s(expired, 'go-jti-2')).expect(200);
    expect(setCookies(refreshed).JWT?.value).toBeTruthy();
    await get(accept, '/auth/logout', s(foreign, 'go-jti')).expect(200);
    await get(accept, '/private', s(foreign, 'go-jti')).expect(401);

    const reject = app({ revocationCheck: 'every-request', unknownSessions: 'reject' });
    await get(reject, '/private', s(foreign, 'go-jti')).expect(401);
    const rejectOnRefresh = app({ unknownSessions: 'reject' });
    await get(rejectOnRefresh, '/private', s(foreign, 'go-jti')).expect(200);
    await get(rejectOnRefresh, '/private', s(expired, 'go-jti-2')).expect(401);
    const own = await login(rejectOnRefresh.app);
    await get(rejectOnRefresh, '/private', own).expect(200);
  });

  it('a token of a recorded session whose record is gone (evicted, or a store that forgot) is refused, unlike a foreign token', async () => {
    const store = new MemoryStateStore();
    const t = app({ stateStore: store, revocationCheck: 'every-request' });
    const s = await login(t.app);
    expect(s.xsrf).toMatch(/^s1\.[0-9a-f]{40}$/);
    await get(t, '/private', s).expect(200);
    // What a store that restarted or evicted the session would hold: nothing of it.
    await store.delete(`session:${jtiHash(s.xsrf)}`);
    const fresh = app({ stateStore: store, revocationCheck: 'every-request' });
    await get(fresh, '/private', s).expect(401, { error: 'the session was revoked', code: 'session_revoked' });
    const refreshing = app({ stateStore: store, tokenDuration: 1000 });
    const other = await login(refreshing.app);
    await store.delete(`session:${jtiHash(other.xsrf)}`);
    await untilExpired(other.jwt);
    await get(refreshing, '/private', other).expect(401);
  });

  it('state store down: logout and revocation answer 503 and change nothing; a revocation made before stays after', async () => {
    const state = faulty(new MemoryStateStore());
    const t = app({ stateStore: state.store, storeTimeout: 300, revocationCheck: 'every-request' });
    const kept = await login(t.app);
    const ended = await login(t.app);
    await get(t, '/auth/logout', ended).expect(200);
    state.set('fail');
    const out = await get(t, '/auth/logout', kept);
    expect([out.status, out.body]).toEqual([503, { error: 'a store is unavailable, try again', code: 'unavailable' }]);
    expect(out.headers['set-cookie']).toBeUndefined();
    const revoke = await post(t, '/auth/sessions/revoke-others', kept);
    expect(revoke.status).toBe(503);
    state.set('stall');
    expect((await get(t, '/auth/sessions', kept)).status).toBe(503);
    state.set('ok');
    await get(t, '/private', kept).expect(200);
    await get(t, '/private', ended).expect(401);
    expect(await t.auth.sessions.list((kept.body as { id: string }).id)).toHaveLength(1);
  });
});

describe('summarizeUserAgent', () => {
  it('names browser and system, cuts unknown agents short, and refuses control characters', () => {
    expect(summarizeUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox on Linux');
    expect(summarizeUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0')).toBe('Edge on Windows');
    expect(summarizeUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1')).toBe('Safari on iOS');
    expect(summarizeUserAgent('Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36')).toBe('Chrome on Android');
    expect(summarizeUserAgent('curl/8.5.0')).toBe('curl');
    expect(summarizeUserAgent('x'.repeat(500))).toBe('x'.repeat(60));
    expect(summarizeUserAgent('bad\u0001agent')).toBe('unknown');
    expect(summarizeUserAgent(undefined)).toBe('unknown');
  });
});
