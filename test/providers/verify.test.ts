import jwt from 'jsonwebtoken';
import request from 'supertest';
import { EmailSender, hashId, MemoryStateStore, senderFunc, type EmailSenderOptions } from '../../src';
import { SECRET, makeApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

const TEMPLATE = 'Hello {{.User}}, confirm your login to {{.Site}} with token {{.Token}} (sent to {{.Address}})';
const tokenIn = (body: string): string => /token ([A-Za-z0-9_.-]+) /.exec(body)?.[1] ?? '';

function emailApp(peer: SmtpPeer, extra: Partial<EmailSenderOptions> = {}, template = TEMPLATE) {
  const sender = new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'auth@app.example', subject: 'Your login', timeout: 5000, ...extra });
  return makeApp({}, (auth) => auth.addVerifyProvider('email', template, sender));
}

describe('verify provider with e-mail through smtp-server', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  it('sends the token by mail, logs in with it once, and refuses a replay', async () => {
    const { app } = emailApp(peer);
    const since = peer.mails.length;
    const step1 = await request(app).get('/auth/email/login?user=grace&address=grace@example.com&from=/welcome').expect(200);
    expect(step1.body).toEqual({ user: 'grace', address: 'grace@example.com' });
    expect(step1.headers['set-cookie']).toBeUndefined();
    const mail = await peer.nextMail(since);
    expect(mail.to).toEqual(['grace@example.com']);
    expect(mail.from).toBe('auth@app.example');
    expect(mail.headers.subject).toBe('Your login');
    expect(mail.body).toContain('Hello grace, confirm your login to authgate');
    const token = tokenIn(mail.body);
    expect(decodeJwt(token).payload.handshake).toMatchObject({ id: 'grace::grace@example.com', from: '/welcome' });

    const step2 = await request(app).get(`/auth/email/login?token=${token}`).expect(303);
    expect(step2.headers.location).toBe('/welcome');
    const user = decodeJwt(setCookies(step2).JWT!.value).payload.user as Record<string, string>;
    expect(user).toMatchObject({ name: 'grace', id: hashId('email', 'grace@example.com'), email: 'grace@example.com' });

    const replay = await request(app).get(`/auth/email/login?token=${token}`).expect(403);
    expect(replay.body.error).toBe('confirmation token was already used');
    expect(replay.headers['set-cookie']).toBeUndefined();
  });

  it('refuses tampered and expired tokens with 403', async () => {
    const { app } = emailApp(peer);
    const since = peer.mails.length;
    await request(app).get('/auth/email/login?user=h&address=h@example.com').expect(200);
    const token = tokenIn((await peer.nextMail(since)).body);
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(token).payload, handshake: { id: 'h::admin@example.com' } })).toString('base64url')}.${s}`;
    await request(app).get(`/auth/email/login?token=${forged}`).expect(403);
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ aud: 'authgate', exp: now - 1, jti: 'x1', handshake: { id: 'h::h@example.com' } }, SECRET, { algorithm: 'HS256' });
    expect((await request(app).get(`/auth/email/login?token=${expired}`).expect(403)).body.error).toMatch(/invalid or expired/);
    await request(app).get('/auth/email/login?token=not-a-token').expect(403);
    await request(app).get(`/auth/email/login?token=${token}`).expect(200);
  });

  it('escapes HTML in the user name in an HTML mail', async () => {
    const { app } = emailApp(peer, { contentType: 'text/html' }, '<p>Hi {{.User}}</p><p>token {{.Token}} </p>');
    const since = peer.mails.length;
    await request(app)
      .get(`/auth/email/login?user=${encodeURIComponent('<script>alert(1)</script>')}&address=x@example.com`)
      .expect(200);
    const mail = await peer.nextMail(since);
    expect(mail.headers['content-type']).toMatch(/^text\/html/);
    expect(mail.body).toContain('<p>Hi &#60;script&#62;alert(1)&#60;/script&#62;</p>');
    expect(mail.body).not.toContain('<script>');
  });

  it('answers bad input with 4xx JSON and sends nothing', async () => {
    const { app } = makeApp({ audiences: ['site'] }, (auth) => auth.addVerifyProvider('email', TEMPLATE, new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'a@app.example' })));
    const before = peer.mails.length;
    const cases: Array<[string, number]> = [
      ['/auth/email/login', 400],
      ['/auth/email/login?user=a', 400],
      ['/auth/email/login?address=a@example.com', 400],
      ['/auth/email/login?user=a&address=not-an-email', 400],
      ['/auth/email/login?user=a&address=a@example.com%0d%0aBcc:evil@example.com', 400],
      ['/auth/email/login?user=a::b&address=a@example.com', 400],
      [`/auth/email/login?user=${'x'.repeat(65)}&address=a@example.com`, 400],
      ['/auth/email/login?user=a&address=a@example.com&aud=other', 403],
    ];
    for (const [path, status] of cases) {
      const res = await request(app).get(path);
      expect([path, res.status]).toEqual([path, status]);
      expect(typeof res.body.error).toBe('string');
    }
    // A POST only confirms a link (from the page a link opened on another site shows); it never sends.
    expect((await request(app).post('/auth/email/login').send({ user: 'a', address: 'a@example.com' }).expect(400)).body).toEqual({ error: 'token is required', code: 'bad_request' });
    expect(peer.mails.length).toBe(before);
  });
});

describe('EmailSender over STARTTLS and with authentication', () => {
  it('sends over STARTTLS to a self-signed server with insecureSkipVerify, and fails clearly without it', async () => {
    const peer = await startSmtpPeer({ startTLS: true });
    try {
      const ok = new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'a@app.example', startTLS: true, insecureSkipVerify: true, timeout: 5000 });
      await ok.send('tls@example.com', 'over tls');
      expect(peer.mails.at(-1)?.body).toContain('over tls');
      const strict = new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'a@app.example', startTLS: true, timeout: 5000 });
      await expect(strict.send('tls@example.com', 'x')).rejects.toThrow(/TLS|SMTP/);
    } finally {
      await peer.close();
    }
  });

  it('authenticates, and a wrong password gives a clear error (502 from the login, no SMTP details)', async () => {
    const peer = await startSmtpPeer({ auth: { user: 'mailer', pass: 'right-pass' }, startTLS: true });
    try {
      const base = { host: '127.0.0.1', port: peer.port, from: 'a@app.example', smtpUserName: 'mailer', startTLS: true, insecureSkipVerify: true, timeout: 5000 };
      await new EmailSender({ ...base, smtpPassword: 'right-pass' }).send('ok@example.com', 'authenticated');
      expect(peer.mails.at(-1)?.body).toContain('authenticated');
      const wrong = new EmailSender({ ...base, smtpPassword: 'wrong-pass' });
      await expect(wrong.send('ok@example.com', 'x')).rejects.toThrow('SMTP authentication failed: check smtpUserName and smtpPassword');
      const { app } = makeApp({}, (auth) => auth.addVerifyProvider('email', TEMPLATE, wrong));
      const res = await request(app).get('/auth/email/login?user=a&address=a@example.com').expect(502);
      expect(res.body).toEqual({ error: 'failed to send the confirmation message', code: 'bad_gateway' });
    } finally {
      await peer.close();
    }
  });
});

describe('verify provider with other senders and a failing state store', () => {
  it('works with a function sender and refuses the login when the state store fails', async () => {
    const sent: string[] = [];
    const state = new MemoryStateStore();
    const { app } = makeApp({ stateStore: state }, (auth) =>
      auth.addVerifyProvider(
        'sms',
        'code {{.Token}} ',
        senderFunc((_a, text) => void sent.push(text)),
      ),
    );
    await request(app).get('/auth/sms/login?user=u&address=%2B15551234567').expect(200);
    const token = /code (\S+)/.exec(sent[0]!)?.[1] ?? '';
    const ok = await request(app).get(`/auth/sms/login?token=${token}&session=1`).expect(200);
    expect(ok.body.id).toBe(hashId('sms', '+15551234567'));
    expect(setCookies(ok).JWT!.attrs['max-age']).toBeUndefined();
    await request(app).get('/auth/sms/login?user=u&address=%2B15551234567').expect(200);
    const second = /code (\S+)/.exec(sent[1]!)?.[1] ?? '';
    await state.close();
    const res = await request(app).get(`/auth/sms/login?token=${second}`).expect(503);
    expect(res.body.error).toBe('the state store is unavailable');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses charsets other than UTF-8 at construction', () => {
    expect(() => new EmailSender({ host: 'h', from: 'a@b.example', charset: 'koi8-r' })).toThrow(/UTF-8/);
    expect(() => new EmailSender({ host: 'h', from: 'a@b.example', charset: 'UTF-8' })).not.toThrow();
    expect(() => new EmailSender({ host: '', from: 'a@b.example' })).toThrow(/host/);
  });

  it('throws at registration without a template or sender', () => {
    expect(() =>
      makeApp({}, (auth) =>
        auth.addVerifyProvider(
          'e',
          'no fields',
          senderFunc(() => undefined),
        ),
      ),
    ).toThrow(/template/);
    expect(() => makeApp({}, (auth) => auth.addVerifyProvider('e', '{{.Token}}', {} as never))).toThrow(/sender/);
  });
});
