import jwt from 'jsonwebtoken';
import request from 'supertest';
import { SECRET, makeApp } from '../support/auth-app';
import { signRaw } from '../support/raw-jwt';
import { setCookies } from '../support/cookies';

const now = (): number => Math.floor(Date.now() / 1000);
const user = { name: 'abuse', id: 'local_dddddddddddddddddddddddddddddddddddddddd', picture: '' };
const claims = (extra: Record<string, unknown> = {}) => ({ aud: 'authgate', exp: now() + 600, jti: 'j1', user, auth_provider: { name: 'local' }, ...extra });

describe('token abuse', () => {
  it('refuses RS256 in the header even when the signature is an HMAC with the secret (algorithm confusion)', async () => {
    const { app } = makeApp();
    await request(app)
      .get('/private')
      .set('X-JWT', signRaw(claims(), SECRET, { alg: 'RS256', typ: 'JWT' }))
      .expect(401);
    await request(app)
      .get('/private')
      .set('X-JWT', signRaw(claims(), SECRET, { alg: 'hs256', typ: 'JWT' }))
      .expect(401);
    await request(app).get('/private').set('X-JWT', signRaw(claims(), SECRET)).expect(200);
  });

  it('refuses oversized tokens in cookies and headers (> 8 KB) with 401, not 500', async () => {
    const { app } = makeApp();
    const big = jwt.sign(claims({ pad: 'p'.repeat(9000) }), SECRET, { algorithm: 'HS256' });
    const cookie = await request(app).get('/private').set('Cookie', `JWT=${big}; XSRF-TOKEN=j1`).set('X-XSRF-TOKEN', 'j1').expect(401);
    expect(cookie.body.error).toBe('token is too large');
    await request(app).get('/private').set('X-JWT', big).expect(401);
  });

  it('reads cookie values as go-pkgz/auth does: blanks or quotes inside a value make it no token (issue 41, item 7)', async () => {
    const { app } = makeApp();
    const token = jwt.sign(claims(), SECRET, { algorithm: 'HS256' });
    const send = (cookie: string): request.Test => request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'j1');
    await send(`JWT=${token}; XSRF-TOKEN=j1`).expect(200);
    await send(`JWT="${token}"; XSRF-TOKEN=j1`).expect(200);
    await send(` JWT =${token} ; XSRF-TOKEN=j1`).expect(200);
    for (const bad of [
      `JWT= ${token}; XSRF-TOKEN=j1`,
      `JWT=\t${token}; XSRF-TOKEN=j1`,
      `JWT=" ${token}"; XSRF-TOKEN=j1`,
      `JWT=${token.slice(0, 20)} ${token.slice(20)}; XSRF-TOKEN=j1`,
      `JWT=${token},; XSRF-TOKEN=j1`,
    ]) {
      const res = await send(bad);
      expect([bad.slice(0, 8), res.status]).toEqual([bad.slice(0, 8), 401]);
    }
  });

  it('takes the first of duplicated JWT cookies', async () => {
    const { app } = makeApp();
    const good = jwt.sign(claims(), SECRET, { algorithm: 'HS256' });
    const bad = jwt.sign(claims(), 'another-secret-0123456789', { algorithm: 'HS256' });
    await request(app).get('/private').set('Cookie', `JWT=${good}; JWT=${bad}; XSRF-TOKEN=j1`).set('X-XSRF-TOKEN', 'j1').expect(200);
    await request(app).get('/private').set('Cookie', `JWT=${bad}; JWT=${good}; XSRF-TOKEN=j1`).set('X-XSRF-TOKEN', 'j1').expect(401);
  });

  it('handles clock skew at the edges: exp now is expired, nbf up to 60 s ahead is tolerated, beyond is not', async () => {
    const { app } = makeApp();
    const at = (extra: Record<string, unknown>) =>
      request(app)
        .get('/private')
        .set('X-JWT', jwt.sign(claims(extra), SECRET, { algorithm: 'HS256' }));
    await at({ exp: now() }).expect(401);
    await at({ exp: now() + 5 }).expect(200);
    await at({ nbf: now() + 30 }).expect(200);
    await at({ nbf: now() + 120 }).expect(401);
    await at({ iat: now() + 3600 }).expect(200);
  });

  it('does not refresh an expired cookie token after the secret was rotated', async () => {
    let secret = SECRET;
    const { app } = makeApp({ secret: undefined, secretReader: () => secret });
    const expired = jwt.sign(claims({ exp: now() - 10 }), SECRET, { algorithm: 'HS256' });
    const cookie = `JWT=${expired}; XSRF-TOKEN=j1`;
    secret = 'rotated-secret-0123456789abcdef';
    const res = await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'j1').expect(401);
    expect(setCookies(res).JWT).toBeUndefined();
    secret = SECRET;
    const ok = await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'j1').expect(200);
    expect(setCookies(ok).JWT?.value).toBeTruthy();
  });
});
