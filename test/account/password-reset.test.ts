import request from 'supertest';
import { createAuth, hashId } from '../../src';
import { SECRET } from '../support/auth-app';
import { activeUser, mailTo, makeAccountApp } from '../support/account-app';
import { setCookies } from '../support/cookies';
import { describeOnEveryAccountStore } from '../support/account-stores';

const codeIn = (body: string): string => /\b([0-9a-f]{32})\b/.exec(body)?.[1] ?? '';

/** The reset flows on one account store (a URI made fresh for each test). */
describeOnEveryAccountStore('password reset', (ctx) => {
  const app = (options: Parameters<typeof makeAccountApp>[1] = {}): ReturnType<typeof makeAccountApp> => makeAccountApp(ctx.peer, { store: ctx.store.uri, ...options });
  const forgot = async (a: ReturnType<typeof makeAccountApp>, email: string): Promise<string> => {
    const since = ctx.peer.mails.length;
    const res = await request(a.app).post('/account/password/forgot').send({ Email: email }).expect(202);
    expect(res.body).toEqual({ Message: 'If an activated account has this e-mail, a reset code is on its way' });
    return codeIn((await mailTo(ctx.peer, email, since)).body);
  };

  it('mails a one-shot code; the reset saves the password, ends every access token and session, and the code works once', async () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, revocationCheck: 'every-request' });
    const a = app({ loginSessions: { sessions: auth.sessions, provider: 'accounts' } });
    auth.addDirectProvider('accounts', a.accounts.credentialChecker());
    a.app.use('/auth', auth.handlers().authRouter);
    a.app.get('/private', auth.middleware().auth, (_req, res) => void res.json({ ok: true }));
    const { id, token } = await activeUser(a.app, ctx.peer, 'reset@example.com', 'old-password');
    const login = await request(a.app).post('/auth/accounts/login').send({ user: 'reset@example.com', passwd: 'old-password' }).expect(200);
    const c = setCookies(login);
    const cookie = `JWT=${c.JWT?.value}`;
    const xsrf = c['XSRF-TOKEN']!.value;
    await request(a.app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200);

    const code = await forgot(a, 'Reset@Example.com');
    expect(code).toMatch(/^[0-9a-f]{32}$/);
    const stored = await a.accounts.store.get(id);
    expect(JSON.stringify(stored)).not.toContain(code);
    await request(a.app).post('/account/password/reset').send({ Email: 'reset@example.com', Code: code, NewPwd: 'new-password', NewPwdRepeat: 'new-password' }).expect(200);
    await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'reset@example.com', password: 'old-password' }).expect(401);
    await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'reset@example.com', password: 'new-password' }).expect(200);
    await request(a.app).get(`/account/profile/${id}/info`).set('Authorization', `Bearer ${token}`).expect(401);
    await request(a.app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(401);
    expect(await auth.sessions.list(hashId('accounts', id))).toEqual([]);
    const again = await request(a.app).post('/account/password/reset').send({ Email: 'reset@example.com', Code: code, NewPwd: 'third-password', NewPwdRepeat: 'third-password' }).expect(400);
    expect(again.body).toEqual({ Code: 2.0, Message: 'InvalidCode', Description: 'the reset code is wrong, used or expired', code: 'invalid_code' });
    await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'reset@example.com', password: 'new-password' }).expect(200);
    await auth.close();
    await a.accounts.close();
  });

  it('a new request voids the earlier code; wrong, expired and foreign codes change nothing', async () => {
    const a = app({ resetCodeTtl: 300 });
    const { id } = await activeUser(a.app, ctx.peer, 'twice@example.com', 'old-password');
    await activeUser(a.app, ctx.peer, 'other@example.com', 'other-password');
    const first = await forgot(a, 'twice@example.com');
    const second = await forgot(a, 'twice@example.com');
    const foreign = await forgot(a, 'other@example.com');
    const before = JSON.stringify(await a.accounts.store.get(id));
    for (const code of [first, foreign, 'f'.repeat(32), second.toUpperCase(), '']) {
      const res = await request(a.app).post('/account/password/reset').send({ Email: 'twice@example.com', Code: code, NewPwd: 'new-password', NewPwdRepeat: 'new-password' });
      expect(res.status).toBe(400);
    }
    expect(JSON.stringify(await a.accounts.store.get(id))).toBe(before);
    await new Promise((r) => setTimeout(r, 350));
    await request(a.app).post('/account/password/reset').send({ Email: 'twice@example.com', Code: second, NewPwd: 'new-password', NewPwdRepeat: 'new-password' }).expect(400);
    expect(JSON.stringify(await a.accounts.store.get(id))).toBe(before);
    await a.accounts.close();
  });

  it('of two racing resets with one code exactly one wins', async () => {
    const a = app();
    await activeUser(a.app, ctx.peer, 'race@example.com', 'old-password');
    const code = await forgot(a, 'race@example.com');
    const results = await Promise.all(
      ['first-password', 'second-password'].map((pwd) => request(a.app).post('/account/password/reset').send({ Email: 'race@example.com', Code: code, NewPwd: pwd, NewPwdRepeat: pwd })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = results[0]!.status === 200 ? 'first-password' : 'second-password';
    await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'race@example.com', password: winner }).expect(200);
    await a.accounts.close();
  });

  it('answers known, unknown and unactivated e-mails alike, mailing only the activated owner; bad bodies 4xx', async () => {
    const a = app();
    await activeUser(a.app, ctx.peer, 'known@example.com', 'old-password');
    const activation = ctx.peer.mails.length;
    await request(a.app).post('/account/signup').send({ Email: 'pending@example.com', Pwd: 'pending-pass', PwdRepeat: 'pending-pass' }).expect(202);
    await mailTo(ctx.peer, 'pending@example.com', activation);
    const since = ctx.peer.mails.length;
    const times: Record<string, number[]> = { known: [], unknown: [], pending: [] };
    for (let i = 0; i < 3; i++) {
      for (const who of ['known', 'unknown', 'pending'] as const) {
        const started = process.hrtime.bigint();
        const res = await request(a.app)
          .post('/account/password/forgot')
          .send({ Email: `${who}@example.com` });
        times[who]!.push(Number(process.hrtime.bigint() - started) / 1e6);
        expect([res.status, res.body]).toEqual([202, { Message: 'If an activated account has this e-mail, a reset code is on its way' }]);
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    const mailed = ctx.peer.mails.slice(since).flatMap((m) => m.to);
    expect(mailed.filter((to) => to !== 'known@example.com')).toEqual([]);
    const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[1]!;
    expect(Math.abs(median(times.known!) - median(times.unknown!))).toBeLessThan(50);
    for (const body of [
      {},
      { Email: 'not an address' },
      { Email: ['x'] },
      { Email: 'known@example.com', Code: 'x' },
      { Email: 'known@example.com', Code: 'x', NewPwd: 'short', NewPwdRepeat: 'short' },
    ]) {
      const res = await request(a.app).post('/account/password/reset').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toHaveProperty('Code');
    }
    await request(a.app).post('/account/password/forgot').send('[1]').set('Content-Type', 'application/json').expect(400);
    await request(a.app)
      .post('/account/password/forgot')
      .send({ Email: 'x'.repeat(2000) })
      .expect(400);
    await a.accounts.close();
  });

  it('limits reset attempts per e-mail (429 with Retry-After) and forgot requests per e-mail', async () => {
    const a = app({ rateLimits: { resetPerEmail: { limit: 3, windowMs: 60_000 }, forgotPerEmail: { limit: 2, windowMs: 60_000 } } });
    await activeUser(a.app, ctx.peer, 'limit@example.com', 'old-password');
    for (let i = 0; i < 3; i++)
      await request(a.app)
        .post('/account/password/reset')
        .send({ Email: 'Limit@example.com', Code: 'f'.repeat(32), NewPwd: 'new-password', NewPwdRepeat: 'new-password' })
        .expect(400);
    const limited = await request(a.app)
      .post('/account/password/reset')
      .send({ Email: 'limit@example.com', Code: 'f'.repeat(32), NewPwd: 'new-password', NewPwdRepeat: 'new-password' })
      .expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    await request(a.app).post('/account/password/forgot').send({ Email: 'limit@example.com' }).expect(202);
    await request(a.app).post('/account/password/forgot').send({ Email: 'LIMIT@example.com' }).expect(202);
    await request(a.app).post('/account/password/forgot').send({ Email: 'limit@example.com' }).expect(429);
    await a.accounts.close();
  });
});
