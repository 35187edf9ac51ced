import express from 'express';
import request from 'supertest';
import { createAccountRouter, MemoryStateStore, senderFunc } from '../../src';
import { makeApp } from '../support/auth-app';

const tight = { limit: 3, windowMs: 60_000 };

describe('rate limits', () => {
  it('limits failed direct logins per user with 429, Retry-After and a JSON body; the right password and other users still pass', async () => {
    const { app } = makeApp({ rateLimits: { loginPerUser: tight } });
    for (let i = 0; i < 3; i++) await request(app).post('/auth/local/login').send({ user: 'victim', passwd: 'guess' }).expect(403);
    const res = await request(app).post('/auth/local/login').send({ user: 'victim', passwd: 'guess' }).expect(429);
    expect(res.body.error).toMatch(/too many requests/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['set-cookie']).toBeUndefined();
    await request(app).post('/auth/local/login').send({ user: 'victim', passwd: 'pw' }).expect(200);
    await request(app).post('/auth/local/login').send({ user: 'someone-else', passwd: 'pw' }).expect(200);
  });

  it('limits per client IP, honouring the app trust proxy setting', async () => {
    const { app } = makeApp({ rateLimits: { loginPerIp: tight, loginPerUser: false } });
    app.set('trust proxy', true);
    for (let i = 0; i < 3; i++) await request(app).get(`/auth/local/login?user=u${i}&passwd=pw`).set('X-Forwarded-For', '203.0.113.7').expect(200);
    await request(app).get('/auth/local/login?user=u9&passwd=pw').set('X-Forwarded-For', '203.0.113.7').expect(429);
    await request(app).get('/auth/local/login?user=u9&passwd=pw').set('X-Forwarded-For', '198.51.100.2').expect(200);
  });

  it('counts an IPv6 client by its /64 (ipv6RateLimitPrefix) and an IPv4-mapped address as the IPv4 address', async () => {
    const { app } = makeApp({ rateLimits: { loginPerIp: tight, loginPerUser: false } });
    app.set('trust proxy', true);
    const from = (ip: string, status: number) => request(app).get('/auth/local/login?user=u&passwd=pw').set('X-Forwarded-For', ip).expect(status);
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:fffe']) await from(ip, 200);
    await from('2001:db8:1:2:abcd::9', 429);
    await from('2001:db8:1:3::1', 200);
    for (const ip of ['10.0.0.7', '::ffff:10.0.0.7', '10.0.0.7']) await from(ip, 200);
    await from('::FFFF:10.0.0.7', 429);

    const wide = makeApp({ rateLimits: { loginPerIp: tight, loginPerUser: false }, ipv6RateLimitPrefix: 128 }).app;
    wide.set('trust proxy', true);
    for (const ip of ['2001:db8::1', '2001:db8::2', '2001:db8::3', '2001:db8::4']) await request(wide).get('/auth/local/login?user=u&passwd=pw').set('X-Forwarded-For', ip).expect(200);
    expect(() => makeApp({ ipv6RateLimitPrefix: 0 })).toThrow(/ipv6RateLimitPrefix/);
  });

  it('limits verify step 1 per address, before anything is sent', async () => {
    const sent: string[] = [];
    const { app } = makeApp({ rateLimits: { verifyPerAddress: { limit: 2, windowMs: 60_000 } } }, (auth) =>
      auth.addVerifyProvider(
        'email',
        'token {{.Token}}',
        senderFunc((a) => void sent.push(a)),
      ),
    );
    await request(app).get('/auth/email/login?user=a&address=x@example.com').expect(200);
    await request(app).get('/auth/email/login?user=b&address=X@example.com').expect(200);
    await request(app).get('/auth/email/login?user=c&address=x@example.com').expect(429);
    expect(sent).toHaveLength(2);
  });

  it('shares counters between instances through one state store, and can be switched off', async () => {
    const shared = new MemoryStateStore();
    const a = makeApp({ stateStore: shared, rateLimits: { loginPerUser: tight } });
    const b = makeApp({ stateStore: shared, rateLimits: { loginPerUser: tight } });
    await request(a.app).get('/auth/local/login?user=s&passwd=x').expect(403);
    await request(b.app).get('/auth/local/login?user=s&passwd=x').expect(403);
    await request(a.app).get('/auth/local/login?user=s&passwd=x').expect(403);
    await request(b.app).get('/auth/local/login?user=s&passwd=x').expect(429);
    const off = makeApp({ rateLimits: false });
    for (let i = 0; i < 15; i++) await request(off.app).get('/auth/local/login?user=s&passwd=x').expect(403);
  });

  it('refuses bad limit settings at start-up', () => {
    expect(() => makeApp({ rateLimits: { loginPerIp: { limit: 0, windowMs: 1000 } } })).toThrow(/rate limit loginPerIp/);
  });

  it('limits the account routes with 429 in the account error format', async () => {
    const accounts = createAccountRouter({
      store: 'memory://',
      sender: senderFunc(() => undefined),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      rateLimits: { signupPerIp: { limit: 2, windowMs: 60_000 }, tokensPerEmail: tight, activePerId: tight },
    });
    const app = express();
    app.use('/account', accounts);
    await request(app).post('/account/signup').send({ Email: 'r1@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(202);
    await request(app).post('/account/signup').send({ Email: 'r2@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(202);
    const limited = await request(app).post('/account/signup').send({ Email: 'r3@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(429);
    expect(limited.body).toMatchObject({ Code: 1.0, Message: 'TooManyRequests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await accounts.store.list(0, 10)).total).toBe(2);
    for (let i = 0; i < 3; i++) await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'r1@example.com', password: 'wrong-pass' }).expect(401);
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'R1@EXAMPLE.com', password: 'wrong-pass' }).expect(429);
    // Failures only: the right password is judged as always (this account is not activated yet).
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'R1@EXAMPLE.com', password: 'password-1' }).expect(403);
    const id = 'a'.repeat(24);
    for (let i = 0; i < 3; i++) await request(app).get(`/account/active/${id}?code=guess`).expect(404);
    await request(app).get(`/account/active/${id}?code=guess`).expect(429);
    await accounts.close();
  });
});
