import jwt from 'jsonwebtoken';
import request from 'supertest';
import { mustGetUser } from '../../src';
import { SECRET, makeApp } from '../support/auth-app';

const now = (): number => Math.floor(Date.now() / 1000);
const user = { name: 'cache', id: 'local_cccccccccccccccccccccccccccccccccccccccc', picture: '', attrs: { plan: 'free' } };
const sign = (secret: string, exp = now() + 600): string => jwt.sign({ aud: 'authgate', exp, jti: 'c1', user, auth_provider: { name: 'local' } }, secret, { algorithm: 'HS256' });

describe('verified-token cache', () => {
  it('rejects a cached token once secretReader gives another secret', async () => {
    let secret = SECRET;
    const { app } = makeApp({ secret: undefined, secretReader: () => secret });
    const token = sign(SECRET);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    secret = 'rotated-secret-0123456789abcdef';
    await request(app).get('/private').set('X-JWT', token).expect(401);
    await request(app).get('/private').set('X-JWT', sign(secret)).expect(200);
  });

  it('still checks expiry of a cached token on every request', async () => {
    const { app } = makeApp();
    // exp is in whole seconds: two of them leave at least one second for the first request.
    const token = sign(SECRET, now() + 2);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    await new Promise((r) => setTimeout(r, 3100));
    const res = await request(app).get('/private').set('X-JWT', token).expect(401);
    expect(res.body.error).toBe('token is expired');
  });

  it('stays within its bound and is off with size 0', async () => {
    const small = makeApp({ verifiedTokenCacheSize: 3 });
    for (let i = 0; i < 10; i++) {
      const token = jwt.sign({ aud: 'authgate', exp: now() + 600, jti: `j${i}`, user }, SECRET, { algorithm: 'HS256' });
      await request(small.app).get('/private').set('X-JWT', token).expect(200);
      await request(small.app).get('/private').set('X-JWT', token).expect(200);
    }
    expect(small.auth.tokens.verifiedCacheSize).toBeGreaterThan(0);
    expect(small.auth.tokens.verifiedCacheSize).toBeLessThanOrEqual(3);
    const off = makeApp({ verifiedTokenCacheSize: 0 });
    await request(off.app).get('/private').set('X-JWT', sign(SECRET)).expect(200);
    expect(off.auth.tokens.verifiedCacheSize).toBe(0);
  });

  it('admits a token on its second sighting, so tokens seen once do not crowd out the rest', async () => {
    const { app, auth } = makeApp();
    for (let i = 0; i < 50; i++) {
      const token = jwt.sign({ aud: 'authgate', exp: now() + 600, jti: `once${i}`, user }, SECRET, { algorithm: 'HS256' });
      await request(app).get('/private').set('X-JWT', token).expect(200);
    }
    expect(auth.tokens.verifiedCacheSize).toBe(0);
    const token = sign(SECRET);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    expect(auth.tokens.verifiedCacheSize).toBe(1);
  });

  it('admits a token only when it comes back while the cache could still hold it', async () => {
    const { app, auth } = makeApp({ verifiedTokenCacheSize: 4 });
    const token = sign(SECRET);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    // Twelve other tokens in between: more than the cache holds, so a second sighting now comes too late.
    for (let i = 0; i < 12; i++) {
      const other = jwt.sign({ aud: 'authgate', exp: now() + 600, jti: `between${i}`, user }, SECRET, { algorithm: 'HS256' });
      await request(app).get('/private').set('X-JWT', other).expect(200);
    }
    await request(app).get('/private').set('X-JWT', token).expect(200);
    expect(auth.tokens.verifiedCacheSize).toBe(0);
    await request(app).get('/private').set('X-JWT', token).expect(200);
    expect(auth.tokens.verifiedCacheSize).toBe(1);
  });

  it("counts an entry only for its own token: another payload under a cached token's signature is refused", async () => {
    const { app, auth } = makeApp();
    const token = sign(SECRET);
    for (let i = 0; i < 3; i++) await request(app).get('/private').set('X-JWT', token).expect(200);
    expect(auth.tokens.verifiedCacheSize).toBe(1);
    const [header, , signature] = token.split('.');
    const payload = Buffer.from(JSON.stringify({ aud: 'authgate', exp: now() + 600, jti: 'c1', user: { ...user, attrs: { admin: true } }, auth_provider: { name: 'local' } })).toString('base64url');
    const res = await request(app).get('/private').set('X-JWT', `${header}.${payload}.${signature}`).expect(401);
    expect(res.body.error).toBe('token is invalid');
    await request(app).get('/private').set('X-JWT', token).expect(200);
  });

  it('verifies with a secret reader that answers with a promise, first and cached', async () => {
    const { app } = makeApp({ secret: undefined, secretReader: async () => SECRET });
    const token = sign(SECRET);
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/private').set('X-JWT', token).expect(200);
      expect(res.body).toMatchObject({ id: user.id, aud: 'authgate' });
    }
    await request(app).get('/private').set('X-JWT', sign('another-secret-0123456789abcdef')).expect(401);
  });

  it("does not let a handler's change to the user reach the next request", async () => {
    const { app, auth } = makeApp();
    app.get('/mutate', auth.middleware().auth, (req, res) => {
      const u = mustGetUser(req);
      u.name = 'changed';
      (u.attrs as Record<string, unknown>).plan = 'gold';
      res.json(u);
    });
    const token = sign(SECRET);
    await request(app).get('/mutate').set('X-JWT', token).expect(200);
    const res = await request(app).get('/private').set('X-JWT', token).expect(200);
    expect(res.body).toMatchObject({ name: 'cache', attrs: { plan: 'free' } });
  });

  it('does not let a change to nested attributes reach the next request, whether the token was cached or not', async () => {
    const { app, auth } = makeApp();
    app.get('/mutate', auth.middleware().auth, (req, res) => {
      const attrs = mustGetUser(req).attrs as { groups: string[]; limits: { max: number } };
      attrs.groups.push('admins');
      attrs.limits.max = 1e9;
      res.json({ ok: true });
    });
    const nested = { ...user, attrs: { groups: ['readers'], limits: { max: 5 } } };
    const token = jwt.sign({ aud: 'authgate', exp: now() + 600, jti: 'n1', user: nested, auth_provider: { name: 'local' } }, SECRET, { algorithm: 'HS256' });
    // The first request verifies, the second puts the token in the cache, the next ones read it from there.
    for (let i = 0; i < 4; i++) {
      await request(app).get('/mutate').set('X-JWT', token).expect(200);
      const res = await request(app).get('/private').set('X-JWT', token).expect(200);
      expect(res.body.attrs).toEqual({ groups: ['readers'], limits: { max: 5 } });
    }
    expect(auth.tokens.verifiedCacheSize).toBe(1);
  });
});
