import request from 'supertest';
import { activeUser, mailTo, makeAccountApp } from '../support/account-app';
import { makeApp } from '../support/auth-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

/** Outsiders, each from an address of its own, fail against one identity; the owner must still get in. */
const outsiders = (n: number): string[] => Array.from({ length: n }, (_, i) => `198.51.100.${i + 1}`);
const OWNER_IP = '203.0.113.9';
const codeIn = (body: string): string => /\b([0-9a-f]{32})\b/.exec(body)?.[1] ?? '';

describe("outsiders' failures do not lock the owner out", () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  it('direct login: past loginPerUser wrong guesses get 429, the right password still logs in', async () => {
    const { app } = makeApp({ rateLimits: { loginPerUser: { limit: 3, windowMs: 60_000 } } });
    app.set('trust proxy', true);
    const guesses = await Promise.all(outsiders(8).map((ip) => request(app).post('/auth/local/login').set('X-Forwarded-For', ip).send({ user: 'victim', passwd: 'guess' })));
    expect(guesses.map((g) => g.status).sort()).toEqual([403, 403, 403, 429, 429, 429, 429, 429]);
    await request(app).post('/auth/local/login').set('X-Forwarded-For', OWNER_IP).send({ user: 'victim', passwd: 'pw' }).expect(200);
  });

  it('account /tokens: the owner with the right password gets a token after many strangers failed', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: { tokensPerEmail: { limit: 3, windowMs: 60_000 } } });
    app.set('trust proxy', true);
    await activeUser(app, peer, 'owner@example.com', 'owner-password');
    const token = (ip: string, password: string): request.Test =>
      request(app).post('/account/tokens').set('X-Forwarded-For', ip).send({ grant_type: 'password', email: 'owner@example.com', password });
    const statuses = [];
    for (const ip of outsiders(6)) statuses.push((await token(ip, 'wrong-password')).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    await token(OWNER_IP, 'owner-password').expect(200);
    await accounts.close();
  });

  it('password recovery: strangers cannot void the code the owner holds, nor get the address mailed more than forgotPerEmail allows', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: { resetPerEmail: { limit: 3, windowMs: 60_000 } } });
    app.set('trust proxy', true);
    await activeUser(app, peer, 'recover@example.com', 'old-password');
    let code = '';
    for (const [i, ip] of outsiders(3).entries()) {
      const since = peer.mails.length;
      await request(app).post('/account/password/forgot').set('X-Forwarded-For', ip).send({ Email: 'recover@example.com' }).expect(202);
      code = codeIn((await mailTo(peer, 'recover@example.com', since)).body);
      expect([i, code]).toEqual([i, expect.stringMatching(/^[0-9a-f]{32}$/)]);
    }
    const mailed = peer.mails.length;
    // The fourth request in the hour sends nothing and leaves the last code as it is.
    await request(app).post('/account/password/forgot').set('X-Forwarded-For', OWNER_IP).send({ Email: 'recover@example.com' }).expect(429);
    for (const ip of outsiders(6)) {
      await request(app)
        .post('/account/password/reset')
        .set('X-Forwarded-For', ip)
        .send({ Email: 'recover@example.com', Code: 'f'.repeat(32), NewPwd: 'evil-password', NewPwdRepeat: 'evil-password' });
    }
    await request(app)
      .post('/account/password/reset')
      .set('X-Forwarded-For', OWNER_IP)
      .send({ Email: 'recover@example.com', Code: code, NewPwd: 'fresh-password', NewPwdRepeat: 'fresh-password' })
      .expect(200);
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'recover@example.com', password: 'fresh-password' }).expect(200);
    expect(peer.mails.length).toBe(mailed);
    await accounts.close();
  });
});
