import request from 'supertest';
import { createAuth } from '../../src';
import { SECRET } from '../support/auth-app';
import { activeUser, makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

describe('lockout: growing delays after wrong passwords, per e-mail and client IP', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  it('slows /tokens from one address after the free failures, lets the owner elsewhere in, and a right password clears it', async () => {
    const a = makeAccountApp(peer, { rateLimits: false, lockout: { freeFailures: 3, firstDelayMs: 400, maxDelayMs: 1000 } });
    a.app.set('trust proxy', true);
    await activeUser(a.app, peer, 'locked@example.com', 'right-password');
    const token = (from: string, password: string): request.Test =>
      request(a.app).post('/account/tokens').set('X-Forwarded-For', from).send({ grant_type: 'password', email: 'Locked@example.com', password });
    for (let i = 0; i < 4; i++) await token('203.0.113.7', 'wrong-password').expect(401);
    // Past the free failures the next attempt waits, right password or not: nothing is checked.
    const waiting = await token('203.0.113.7', 'right-password').expect(429);
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(waiting.body).toMatchObject({ Code: 1.0, Message: 'TooManyRequests' });
    // The owner on another address is not locked out.
    await token('198.51.100.2', 'right-password').expect(200);
    await new Promise((r) => setTimeout(r, 450));
    await token('203.0.113.7', 'wrong-password').expect(401);
    // Doubled: still waiting after the first delay.
    await new Promise((r) => setTimeout(r, 450));
    await token('203.0.113.7', 'right-password').expect(429);
    await new Promise((r) => setTimeout(r, 400));
    await token('203.0.113.7', 'right-password').expect(200);
    // Cleared by the right password: the free failures start again.
    for (let i = 0; i < 3; i++) await token('203.0.113.7', 'wrong-password').expect(401);
    await token('203.0.113.7', 'right-password').expect(200);
    await a.accounts.close();
  });

  it('applies to logins through the account bridge, by client IP', async () => {
    const a = makeAccountApp(peer, { rateLimits: false, lockout: { freeFailures: 2, firstDelayMs: 60_000 } });
    a.app.set('trust proxy', true);
    await activeUser(a.app, peer, 'bridge-lock@example.com', 'right-password');
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, rateLimits: false });
    auth.addDirectProvider('accounts', a.accounts.credentialChecker());
    a.app.use('/auth', auth.handlers().authRouter);
    const login = (from: string, passwd: string): request.Test => request(a.app).post('/auth/accounts/login').set('X-Forwarded-For', from).send({ user: 'bridge-lock@example.com', passwd });
    for (let i = 0; i < 3; i++) await login('203.0.113.9', 'wrong-password').expect(403);
    const res = await login('203.0.113.9', 'right-password').expect(429);
    expect(res.headers['retry-after']).toBeDefined();
    await login('198.51.100.9', 'right-password').expect(200);
    await auth.close();
    await a.accounts.close();
  });

  it('can be turned off, and refuses bad rules at start-up', () => {
    expect(() => makeAccountApp(peer, { lockout: { freeFailures: -1 } })).toThrow(/freeFailures/);
    expect(() => makeAccountApp(peer, { lockout: { maxDelayMs: 0 } })).toThrow(/maxDelayMs/);
    expect(() => makeAccountApp(peer, { lockout: false })).not.toThrow();
  });
});
