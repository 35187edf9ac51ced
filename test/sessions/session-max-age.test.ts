import request from 'supertest';
import { hashId } from '../../src';
import { SECRET, login, makeApp } from '../support/auth-app';
import { signRaw } from '../support/raw-jwt';
import { setClock } from '../support/clock';
import { decodeJwt, setCookies } from '../support/cookies';

describe('sessionMaxAge', () => {
  afterEach(() => jest.useRealTimers());

  it('refreshes within it, never past it: the last token ends with it, and an older cookie is refused (401)', async () => {
    const { app } = makeApp({ sessionMaxAge: 60_000, tokenDuration: 20_000 });
    const start = Math.floor(Date.now() / 1000);
    setClock(start);
    const s = await login(app);
    const authTime = decodeJwt(s.jwt).payload.auth_time as number;
    expect(authTime).toBe(start);

    setClock(start + 45);
    const refreshed = await request(app).get('/private').set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf).expect(200);
    const next = setCookies(refreshed).JWT!.value;
    const claims = decodeJwt(next).payload;
    // Kept by the refresh, and the new token's expiry capped at the session's end (not start + 45 + 20).
    expect(claims.auth_time).toBe(authTime);
    expect(claims.exp).toBe(authTime + 60);

    setClock(start + 61);
    const refused = await request(app).get('/private').set('Cookie', `JWT=${next}; XSRF-TOKEN=${s.xsrf}`).set('X-XSRF-TOKEN', s.xsrf).expect(401);
    expect(refused.body.error).toMatch(/sessionMaxAge/);
    expect(setCookies(refused).JWT?.value).toBe('');
  });

  it('a token from before auth_time (or from go-pkgz/auth) is dated by its iat at its first refresh, and bounded from then on', async () => {
    const { app } = makeApp({ sessionMaxAge: 60_000, tokenDuration: 20_000 });
    const start = Math.floor(Date.now() / 1000);
    setClock(start + 30);
    const old = signRaw({ aud: 'authgate', exp: start + 20, iat: start, jti: 'old-session', user: { name: 'o', id: hashId('local', 'o'), picture: '' }, auth_provider: { name: 'local' } }, SECRET);
    const refreshed = await request(app).get('/private').set('Cookie', `JWT=${old}; XSRF-TOKEN=old-session`).set('X-XSRF-TOKEN', 'old-session').expect(200);
    const next = setCookies(refreshed).JWT!.value;
    expect(decodeJwt(next).payload).toMatchObject({ auth_time: start, exp: start + 50 });
    setClock(start + 61);
    await request(app).get('/private').set('Cookie', `JWT=${next}; XSRF-TOKEN=old-session`).set('X-XSRF-TOKEN', 'old-session').expect(401);
  });

  it('without it, a session goes on being refreshed; bad values fail at start-up', async () => {
    const { app } = makeApp({ tokenDuration: 20_000 });
    const start = Math.floor(Date.now() / 1000);
    setClock(start);
    const s = await login(app);
    setClock(start + 3600);
    await request(app).get('/private').set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf).expect(200);
    expect(() => makeApp({ sessionMaxAge: 1000 })).toThrow(/sessionMaxAge/);
  });
});
