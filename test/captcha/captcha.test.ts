import request from 'supertest';
import { AuthError, EmailSender, loggerFunc, senderFunc } from '../../src';
import { accounts } from '../../src/accounts';
import { captcha, type CaptchaOptions } from '../../src/captcha';
import { makeApp, type TestApp } from '../support/auth-app';
import { startCaptchaPeer, type CaptchaPeer } from '../support/captcha-peer';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, tokenOf } from '../organizations/org-helpers';

const SECRET = 'captcha-secret-key';

describe('captcha() plugin: Turnstile, hCaptcha and reCAPTCHA v3 verified on the server', () => {
  let peer: CaptchaPeer;
  let smtp: SmtpPeer;
  let t: TestApp | undefined;
  const mails: string[] = [];
  beforeAll(async () => {
    peer = await startCaptchaPeer(SECRET);
    smtp = await startSmtpPeer();
  });
  afterAll(async () => {
    await peer.close();
    await smtp.close();
  });
  beforeEach(() => {
    peer.mode = 'ok';
    peer.requests.length = 0;
    mails.length = 0;
  });
  afterEach(async () => {
    await t?.auth.close();
    t = undefined;
  });

  /** An app with the plugin, the direct provider `local` (password `pw`), e-mail links, and accounts under /account. */
  function app(options: Omit<CaptchaOptions, 'secret'>, logLines: string[] = []): TestApp {
    const accountService = accounts({
      store: 'memory://',
      sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'accounts@app.example', timeout: 5000 }),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
      passwordPolicy: { commonPasswords: false },
    });
    t = makeApp({ plugins: [captcha({ secret: SECRET, ...options }), accountService], logger: loggerFunc((l) => logLines.push(l)) }, (auth) => {
      auth.addVerifyProvider(
        'email',
        'token {{.Token}}',
        senderFunc((to) => void mails.push(to)),
      );
    });
    t.app.set('trust proxy', true);
    t.app.use('/account', accountService.router);
    return t;
  }
  const loginAs = (a: TestApp, passwd: string, headers: Record<string, string> = {}, extra: Record<string, string> = {}): request.Test =>
    request(a.app)
      .post('/auth/local/login')
      .set(headers)
      .send({ user: 'alice', passwd, ...extra });

  it('Turnstile on every login: no token 403 captcha_required, a solved one logs in once, a replay and a foreign site are refused', async () => {
    const a = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: 'always' } });
    const missing = await loginAs(a, 'pw').expect(403);
    expect(missing.body).toMatchObject({ code: 'captcha_required' });
    expect(peer.requests).toEqual([]);

    const token = peer.issue('turnstile-token-1');
    await loginAs(a, 'pw', { 'X-Captcha-Token': token, 'X-Forwarded-For': '203.0.113.9' }).expect(200);
    expect(peer.requests).toEqual([{ path: '/turnstile/v0/siteverify', form: { secret: SECRET, response: token, remoteip: '203.0.113.9' } }]);
    // The same answer again: refused here, without asking the service.
    const replay = await loginAs(a, 'pw', { 'X-Captcha-Token': token }).expect(403);
    expect(replay.body.code).toBe('captcha_invalid');
    expect(peer.requests).toHaveLength(1);

    // The widget's own form field works too; a token solved on another site does not.
    await loginAs(a, 'pw', {}, { 'cf-turnstile-response': peer.issue('turnstile-token-2') }).expect(200);
    const foreign = await loginAs(a, 'pw', { 'X-Captcha-Token': peer.issue('turnstile-token-3', { hostname: 'evil.example' }) }).expect(403);
    expect(foreign.body).toMatchObject({ code: 'captcha_invalid' });
    const unknown = await loginAs(a, 'pw', { 'X-Captcha-Token': 'never-issued' }).expect(403);
    expect(unknown.body.error).toContain('invalid-input-response');
    expect((await loginAs(a, 'pw', { 'X-Captcha-Token': 'x'.repeat(5000) })).status).toBe(403);
  });

  it('asks only after failed logins from one IP: the owner elsewhere is not asked, a right password with no token is refused there', async () => {
    const a = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: { after: 2 } } });
    const bot = { 'X-Forwarded-For': '198.51.100.7' };
    for (let i = 0; i < 2; i++) expect((await loginAs(a, 'wrong', bot).expect(403)).body.code).toBe('credentials_rejected');
    expect((await loginAs(a, 'pw', bot).expect(403)).body.code).toBe('captcha_required');
    await loginAs(a, 'pw', { 'X-Forwarded-For': '192.0.2.44' }).expect(200);
    await loginAs(a, 'pw', { ...bot, 'X-Captcha-Token': peer.issue('after-failures') }).expect(200);
    expect(peer.requests).toHaveLength(1);
    // An IPv6 guesser counts by its /64, however many addresses of it it uses.
    await loginAs(a, 'wrong', { 'X-Forwarded-For': '2001:db8:1:2::1' }).expect(403);
    await loginAs(a, 'wrong', { 'X-Forwarded-For': '2001:db8:1:2::2' }).expect(403);
    expect((await loginAs(a, 'pw', { 'X-Forwarded-For': '2001:db8:1:2::3' }).expect(403)).body.code).toBe('captcha_required');
    await loginAs(a, 'pw', { 'X-Forwarded-For': '2001:db8:1:3::1' }).expect(200);
  });

  it('counts before the password is checked: of 12 concurrent wrong passwords under after: 3 exactly 3 are checked; right passwords take their count back', async () => {
    const a = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: { after: 3 } } });
    const burst = await Promise.all(Array.from({ length: 12 }, () => loginAs(a, 'wrong', { 'X-Forwarded-For': '198.51.100.20' })));
    const codes = burst.map((r) => r.body.code as string);
    expect([codes.filter((c) => c === 'credentials_rejected').length, codes.filter((c) => c === 'captcha_required').length]).toEqual([3, 9]);
    // Ten good logins from one office address: none is asked.
    for (let i = 0; i < 10; i++) await loginAs(a, 'pw', { 'X-Forwarded-For': '198.51.100.21' }).expect(200);
  });

  it('a success is taken back only in the window it was counted in: right passwords cannot be banked for a later window', async () => {
    const a = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: { after: 3, windowMs: 1000 } } });
    const bot = { 'X-Forwarded-For': '198.51.100.40' };
    for (let i = 0; i < 20; i++) await loginAs(a, 'pw', bot).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) codes.push((await loginAs(a, 'wrong', bot)).body.code as string);
    expect(codes).toEqual(['credentials_rejected', 'credentials_rejected', 'credentials_rejected', 'captcha_required', 'captcha_required', 'captcha_required']);
  });

  it('basic auth checks passwords behind the same guard, and its failures count', async () => {
    const a = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: { after: 2 } } });
    await a.auth.close();
    t = makeApp({
      adminPasswd: 'admin-password-0123456789',
      plugins: [captcha({ secret: SECRET, service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: { after: 2 } } })],
    });
    t.app.set('trust proxy', true);
    const basic = (passwd: string, headers: Record<string, string> = {}): request.Test =>
      request((t as TestApp).app)
        .get('/private')
        .set({ 'X-Forwarded-For': '198.51.100.30', ...headers })
        .auth('admin', passwd);
    for (let i = 0; i < 2; i++) expect((await basic('wrong')).status).toBe(401);
    const asked = await basic('admin-password-0123456789');
    expect([asked.status, asked.body.code]).toEqual([403, 'captcha_required']);
    await basic('admin-password-0123456789', { 'X-Captcha-Token': peer.issue('basic-1') }).expect(200);
    await request(t.app).get('/private').set('X-Forwarded-For', '192.0.2.50').auth('admin', 'admin-password-0123456789').expect(200);
  });

  it('/account/signup/resend mails only behind the sign-up guard', async () => {
    const a = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { signup: 'always' } });
    const sent = smtp.mails.length;
    const res = await request(a.app).post('/account/signup/resend').send({ Email: 'resend@example.com', Pwd: 'a long password 123' });
    expect([res.status, res.body.code]).toEqual([403, 'captcha_required']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.mails.length).toBe(sent);
  });

  it('hCaptcha on sign-up and reset requests of the account service: the site key is sent, refusals carry the code', async () => {
    const a = app({ service: 'hcaptcha', siteKey: 'site-key-1', verifyUrl: `${peer.origin}/siteverify`, actions: { signup: 'always', 'password-reset': 'always' } });
    const body = { Email: 'new@example.com', Pwd: 'a long password 123', PwdRepeat: 'a long password 123' };
    const refused = await request(a.app).post('/account/signup').send(body).expect(403);
    expect(refused.body).toEqual({ Code: 1.0, Message: 'Forbidden', Description: expect.stringContaining('CAPTCHA'), code: 'captcha_required' });
    await request(a.app)
      .post('/account/signup')
      .send({ ...body, 'h-captcha-response': peer.issue('h-1') })
      .expect(202);
    expect(peer.requests[0]).toEqual({ path: '/siteverify', form: { secret: SECRET, response: 'h-1', remoteip: '127.0.0.1', sitekey: 'site-key-1' } });
    expect((await request(a.app).post('/account/password/forgot').send({ Email: 'new@example.com' }).expect(403)).body.code).toBe('captcha_required');
    await request(a.app).post('/account/password/forgot').set('X-Captcha-Token', peer.issue('h-2')).send({ Email: 'new@example.com' }).expect(202);
  });

  it('reCAPTCHA v3 on e-mail links: the score and the action are checked before any mail goes out', async () => {
    const a = app({ service: 'recaptcha-v3', verifyUrl: `${peer.origin}/recaptcha/api/siteverify`, minScore: 0.5, actions: { 'email-link': 'always' } });
    const ask = (token: string): request.Test => request(a.app).get('/auth/email/login?user=bob&address=bob@example.com').set('X-Captcha-Token', token);
    expect((await ask(peer.issue('low', { score: 0.3, action: 'email_link' })).expect(403)).body.error).toContain('score');
    expect((await ask(peer.issue('other-action', { score: 0.9, action: 'login' })).expect(403)).body.error).toContain('another action');
    expect(mails).toEqual([]);
    await ask(peer.issue('good', { score: 0.9, action: 'email_link' })).expect(200);
    expect(mails).toEqual(['bob@example.com']);
  });

  it('a service that cannot be asked: 503 with nothing done, or let through and logged with failOpen', async () => {
    const closed = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, timeoutMs: 300, actions: { 'email-link': 'always' } });
    for (const mode of ['error', 'slow'] as const) {
      peer.mode = mode;
      const res = await request(closed.app)
        .get('/auth/email/login?user=bob&address=bob@example.com')
        .set('X-Captcha-Token', peer.issue(`down-${mode}`))
        .expect(503);
      expect(res.body.code).toBe('unavailable');
    }
    expect(mails).toEqual([]);
    // An answer the service never judged may be sent again once it is back.
    peer.mode = 'ok';
    await request(closed.app).get('/auth/email/login?user=bob&address=bob@example.com').set('X-Captcha-Token', peer.issue('down-error')).expect(200);
    expect(mails).toEqual(['bob@example.com']);
    mails.length = 0;
    await closed.auth.close();
    const lines: string[] = [];
    const open = app({ service: 'turnstile', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, timeoutMs: 300, failOpen: true, actions: { 'email-link': 'always' } }, lines);
    peer.mode = 'error';
    await request(open.app).get('/auth/email/login?user=bob&address=bob@example.com').set('X-Captcha-Token', peer.issue('down-open')).expect(200);
    expect(lines.join('\n')).toMatch(/captcha: 127\.0\.0\.1:\d+ did not answer .*let through \(failOpen\)/);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('refuses bad options at start-up, naming them', () => {
    const make = (o: Partial<CaptchaOptions>) => () => captcha({ service: 'turnstile', secret: SECRET, ...o } as CaptchaOptions);
    expect(make({ service: 'recaptcha-v2' as never })).toThrow(/service must be one of/);
    expect(make({ secret: '' })).toThrow(/secret/);
    expect(make({ actions: { logout: 'always' } as never })).toThrow(/logout is not a guarded action/);
    expect(make({ actions: { login: { after: -1 } } })).toThrow(/actions.login/);
    expect(make({ minScore: 2 })).toThrow(/minScore/);
    expect(make({ verifyUrl: 'ftp://x' })).toThrow(/verifyUrl/);
    expect(make({ hostnames: [''] })).toThrow(/hostnames/);
    expect(make({})).not.toThrow();
    expect(make({ secret: '' })).toThrow(AuthError);
  });
});

describe('captcha() on accepting an invitation', () => {
  it('asks the invitee for an answer before the membership is made', async () => {
    const smtp = await startSmtpPeer();
    const peer = await startCaptchaPeer(SECRET);
    const t = orgApp(smtp, 'memory://', {
      plugins: [captcha({ service: 'turnstile', secret: SECRET, verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { 'invitation-accept': 'always' } })],
    });
    try {
      const owner = await new Browser(t.app).login('olive');
      const { id: org } = (await owner.post('/auth/orgs', { name: 'Captcha Org' })).body as { id: string };
      const since = smtp.mails.length;
      expect((await owner.post(`/auth/orgs/${org}/invitations`, { email: 'ivan@example.com', role: 'member' })).status).toBe(201);
      const token = tokenOf((await smtp.nextMail(since)).body);
      const ivan = await new Browser(t.app).login('ivan@example.com');
      const refused = await ivan.post('/auth/orgs/invitations/accept', { token });
      expect([refused.status, refused.body.code]).toEqual([403, 'captcha_required']);
      expect((await owner.get(`/auth/orgs/${org}/members`)).body).toHaveLength(1);
      const accepted = await ivan.post('/auth/orgs/invitations/accept', { token, 'cf-turnstile-response': peer.issue('invite-1') });
      expect(accepted.status).toBe(200);
      expect((await owner.get(`/auth/orgs/${org}/members`)).body).toHaveLength(2);
    } finally {
      await t.auth.close();
      await smtp.close();
      await peer.close();
    }
  });
});
