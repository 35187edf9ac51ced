import request from 'supertest';
import { hashId } from '../../src';
import { adminApp, Session } from '../admin/admin-helpers';
import { makeApp } from '../support/auth-app';

const basic = (user: string, passwd: string): [string, string] => ['Authorization', `Basic ${Buffer.from(`${user}:${passwd}`).toString('base64')}`];

describe('basic auth: failures rate-limited, cross-site writes refused (item 3)', () => {
  it('after 10 wrong admin passwords in a minute, the next attempt, even with the right one, gets 429 with Retry-After; successes do not count', async () => {
    const { app } = makeApp({ adminPasswd: 'admin-secret' });
    for (let i = 0; i < 20; i++)
      await request(app)
        .get('/admin')
        .set(...basic('admin', 'admin-secret'))
        .expect(200);
    for (let i = 0; i < 10; i++)
      await request(app)
        .get('/admin')
        .set(...basic('admin', `guess-${i}`))
        .expect(401);
    const blocked = await request(app)
      .get('/admin')
      .set(...basic('admin', 'admin-secret'))
      .expect(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.error).toMatch(/too many requests/);
    await request(app)
      .get('/auth/user')
      .set(...basic('admin', 'admin-secret'))
      .expect(429);
    // m.trace never rejects: a blocked basic login is anonymous there.
    expect(
      (
        await request(app)
          .get('/open')
          .set(...basic('admin', 'admin-secret'))
          .expect(200)
      ).body,
    ).toEqual({ user: null });
  });

  it('counts failures per IP across user names, and per user name with basicAuthChecker', async () => {
    const { app } = makeApp({ basicAuthChecker: (u, p) => u === 'svc' && p === 'svc-pw', rateLimits: { basicPerIp: { limit: 5, windowMs: 60_000 } } });
    for (let i = 0; i < 5; i++)
      await request(app)
        .get('/private')
        .set(...basic(`user${i}`, 'x'))
        .expect(401);
    await request(app)
      .get('/private')
      .set(...basic('svc', 'svc-pw'))
      .expect(429);
    const other = makeApp({ basicAuthChecker: (u, p) => u === 'svc' && p === 'svc-pw' });
    for (let i = 0; i < 10; i++)
      await request(other.app)
        .get('/private')
        .set(...basic('svc', `x${i}`))
        .expect(401);
    await request(other.app)
      .get('/private')
      .set(...basic('svc', 'svc-pw'))
      .expect(429);
    await request(other.app)
      .get('/private')
      .set(...basic('someone', 'x'))
      .expect(401);
  });

  it('refuses a cross-site state-changing request authenticated by (browser-cached) basic credentials', async () => {
    const { app } = makeApp({ adminPasswd: 'admin-secret' });
    const res = await request(app)
      .post('/private')
      .set(...basic('admin', 'admin-secret'))
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ a: 1 })
      .expect(403);
    expect(res.body).toEqual({ error: 'cross-site request with basic auth refused', code: 'cross_site' });
    await request(app)
      .post('/private')
      .set(...basic('admin', 'admin-secret'))
      .set('Origin', 'https://evil.example')
      .expect(403);
    await request(app)
      .post('/private')
      .set(...basic('admin', 'admin-secret'))
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(200);
    await request(app)
      .post('/private')
      .set(...basic('admin', 'admin-secret'))
      .expect(200);
    await request(app)
      .get('/admin')
      .set(...basic('admin', 'admin-secret'))
      .set('Sec-Fetch-Site', 'cross-site')
      .expect(200);
  });

  it('a banned user of the directory is refused through basicAuthChecker too, with code banned (issue 41, item 5)', async () => {
    const t = adminApp({ basicAuthChecker: (user, passwd) => (passwd === 'pw' ? { id: hashId('local', user), name: user, picture: '' } : false) });
    try {
      const root = new Session(t);
      await root.login('root');
      const carl = new Session(t);
      await carl.login('carl');
      await request(t.app)
        .get('/private')
        .set(...basic('carl', 'pw'))
        .expect(200);
      expect((await root.post(`/auth/admin/users/${carl.id}/ban`, { reason: 'x' })).status).toBe(200);
      const refused = await request(t.app)
        .get('/private')
        .set(...basic('carl', 'pw'));
      expect([refused.status, refused.body.code]).toEqual([401, 'banned']);
      expect(
        (
          await request(t.app)
            .get('/open')
            .set(...basic('carl', 'pw'))
        ).body,
      ).toEqual({ user: null });
      expect((await root.post(`/auth/admin/users/${carl.id}/unban`)).status).toBe(200);
      await request(t.app)
        .get('/private')
        .set(...basic('carl', 'pw'))
        .expect(200);
    } finally {
      await t.auth.close();
    }
  });

  it('can be turned off per limit', async () => {
    const { app } = makeApp({ adminPasswd: 'admin-secret', rateLimits: { basicPerUser: false, basicPerIp: false } });
    for (let i = 0; i < 15; i++)
      await request(app)
        .get('/admin')
        .set(...basic('admin', 'nope'))
        .expect(401);
    await request(app)
      .get('/admin')
      .set(...basic('admin', 'admin-secret'))
      .expect(200);
  });
});
