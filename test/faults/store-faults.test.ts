import express from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createAccountRouter, createAuth, loggerFunc, MemoryAvatarStore, MemoryStateStore, senderFunc } from '../../src';
import { MemoryAccountStore } from '../../src/accounts';
import { SECRET, makeApp } from '../support/auth-app';
import { faulty } from '../support/faulty';

const within = async (ms: number, run: () => Promise<request.Response>): Promise<request.Response> => {
  const start = Date.now();
  const res = await run();
  expect(Date.now() - start).toBeLessThan(ms);
  return res;
};

describe('store faults', () => {
  it('state store failing or stalling: logins answer 503 JSON in time, and recover', async () => {
    const state = faulty(new MemoryStateStore());
    const { app } = makeApp({ stateStore: state.store, storeTimeout: 300 });
    state.set('fail');
    const failed = await within(1000, () => request(app).get('/auth/local/login?user=a&passwd=pw'));
    expect([failed.status, failed.body]).toEqual([503, { error: 'the state store is unavailable', code: 'unavailable' }]);
    state.set('stall');
    const stalled = await within(1000, () => request(app).get('/auth/local/login?user=a&passwd=pw'));
    expect(stalled.status).toBe(503);
    expect(stalled.headers['set-cookie']).toBeUndefined();
    state.set('ok');
    await request(app).get('/auth/local/login?user=a&passwd=pw').expect(200);
  });

  it('a one-shot token is never accepted twice across a store outage', async () => {
    const state = faulty(new MemoryStateStore());
    const sent: string[] = [];
    const { app } = makeApp({ stateStore: state.store, storeTimeout: 300 }, (auth) =>
      auth.addVerifyProvider(
        'email',
        'token {{.Token}} ',
        senderFunc((_a, t) => void sent.push(t)),
      ),
    );
    await request(app).get('/auth/email/login?user=u&address=u@example.com').expect(200);
    const token = /token (\S+)/.exec(sent[0]!)![1]!;
    state.set('stall');
    await within(1000, () => request(app).get(`/auth/email/login?token=${token}`)).then((r) => expect(r.status).toBe(503));
    state.set('ok');
    await request(app).get(`/auth/email/login?token=${token}`).expect(200);
    await request(app).get(`/auth/email/login?token=${token}`).expect(403);
  });

  it('avatar store failing: the avatar route answers 503, logins go on without a picture, and both recover', async () => {
    const avatars = faulty(new MemoryAvatarStore());
    const { app } = makeApp({ avatarStore: avatars.store, storeTimeout: 300 });
    const ok = await request(app).get('/auth/local/login?user=pic&passwd=pw').expect(200);
    const path = new URL(ok.body.picture as string).pathname;
    avatars.set('stall');
    const route = await within(1000, () => request(app).get(path));
    expect([route.status, route.body]).toEqual([503, { error: 'avatar store unavailable' }]);
    const login = await within(1000, () => request(app).get('/auth/local/login?user=other&passwd=pw'));
    expect(login.status).toBe(200);
    expect(login.body.picture).toBe('');
    avatars.set('ok');
    await request(app).get(path).expect(200);
  });

  it('account store failing or stalling: 503 in time, no half-written account, and recovery', async () => {
    const inner = new MemoryAccountStore();
    const accounts = faulty(inner);
    const router = createAccountRouter({ store: accounts.store, sender: senderFunc(() => undefined), baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4, storeTimeout: 300 });
    const app = express();
    app.use('/account', router);
    const signup = (email: string) => request(app).post('/account/signup').send({ Email: email, Pwd: 'password-1', PwdRepeat: 'password-1' });
    accounts.set('fail');
    const failed = await within(1000, () => signup('f@example.com'));
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ Message: 'Unavailable' });
    accounts.set('stall');
    expect((await within(1000, () => signup('s@example.com'))).status).toBe(503);
    expect((await within(1000, () => request(app).post('/account/tokens').send({ grant_type: 'password', email: 's@example.com', password: 'password-1' }))).status).toBe(503);
    accounts.set('ok');
    const list = await inner.list(0, 10);
    expect(list.accounts.every((a) => a.Email && /^hmac-sha256\$\$2/.test(a.Pwd) && a.ConfirmCodes.activate)).toBe(true);
    await signup('f@example.com').expect(202);
    // A second sign-up replaces the pending one: still one account.
    await signup('f@example.com').expect(202);
    expect((await inner.list(0, 100)).accounts.filter((a) => a.Email === 'f@example.com')).toHaveLength(1);
  });

  it('auth answers 503 when the refresh cache (on the state store) fails, and trace goes on anonymous', async () => {
    const state = faulty(new MemoryStateStore());
    const { app } = makeApp({ stateStore: state.store, storeTimeout: 300 });
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ aud: 'authgate', exp: now - 10, jti: 'x1', user: { name: 'r', id: 'local_r', picture: '' }, auth_provider: { name: 'local' } }, SECRET, { algorithm: 'HS256' });
    const cookie = `JWT=${expired}; XSRF-TOKEN=x1`;
    state.set('stall');
    const res = await within(1000, () => request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'x1'));
    expect([res.status, res.body]).toEqual([503, { error: 'a store is unavailable, try again', code: 'unavailable' }]);
    const open = await within(1000, () => request(app).get('/open').set('Cookie', cookie).set('X-XSRF-TOKEN', 'x1'));
    expect([open.status, open.body]).toEqual([200, { user: null }]);
    state.set('ok');
    await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', 'x1').expect(200);
  });

  it('a password reset that was saved is answered as saved, even when ending the sessions once more fails after it', async () => {
    const state = faulty(new MemoryStateStore());
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, stateStore: state.store });
    const inner = new MemoryAccountStore();
    const mails: string[] = [];
    const lines: string[] = [];
    // The state store (sessions) fails from the moment the new password is in the account store.
    const accounts = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (key !== 'update' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const saved = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as { Pwd?: string } | undefined;
          if (resetting) state.set('fail');
          return saved;
        };
      },
    });
    let resetting = false;
    const router = createAccountRouter({
      store: accounts,
      sender: senderFunc((_to, text) => void mails.push(text)),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      rateLimits: false,
      loginSessions: { sessions: auth.sessions, provider: 'accounts' },
      logger: loggerFunc((line) => lines.push(line)),
    });
    const app = express().use('/account', router);
    await request(app).post('/account/signup').send({ Email: 'truth@example.com', Pwd: 'old-password', PwdRepeat: 'old-password' }).expect(202);
    const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mails.at(-1) ?? '')?.[1] ?? '');
    await request(app)
      .get(link.pathname + link.search)
      .expect(200);
    await request(app).post('/account/password/forgot').send({ Email: 'truth@example.com' }).expect(202);
    const code = /\b([0-9a-f]{32})\b/.exec(mails.at(-1) ?? '')?.[1] ?? '';
    resetting = true;
    const res = await request(app).post('/account/password/reset').send({ Email: 'truth@example.com', Code: code, NewPwd: 'new-password', NewPwdRepeat: 'new-password' });
    resetting = false;
    state.set('ok');
    expect([res.status, res.body]).toEqual([200, { Message: 'Password changed; every session was signed out' }]);
    expect(lines.join('\n')).toMatch(/the change was saved, but ending its sessions again failed/);
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'truth@example.com', password: 'new-password' }).expect(200);
    await auth.close();
  });
});
