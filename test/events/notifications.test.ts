import request from 'supertest';
import { EmailSender } from '../../src';
import { adminApp, Session } from '../admin/admin-helpers';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { eventually } from '../support/eventually';
import { totpCode } from '../support/totp-code';

describe('notification mails (smtp-server)', () => {
  let smtp: SmtpPeer;
  beforeAll(async () => {
    smtp = await startSmtpPeer();
  });
  afterAll(() => smtp.close());

  it('a new browser, a second factor turned on, a ban: one mail each to the owner, holding no secret; the first browser and turned-off kinds send none', async () => {
    const t = adminApp({
      twoFactor: { key: 'notify-test-two-factor-key-0123456789' },
      notifications: {
        sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'security@app.example', timeout: 5000 }),
        addressOf: (user) => `${user.name}@example.com`,
        off: ['password'],
      },
    });
    try {
      const since = smtp.mails.length;
      const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
      const chrome = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0 Safari/537.36';
      await request(t.app).post('/auth/local/login').set('User-Agent', firefox).send({ user: 'gina', passwd: 'pw' }).expect(200);
      await request(t.app).post('/auth/local/login').set('User-Agent', firefox).send({ user: 'gina', passwd: 'pw' }).expect(200);
      await t.auth.events.flush();
      expect(smtp.mails.length).toBe(since);
      const login = await request(t.app).post('/auth/local/login').set('User-Agent', chrome).send({ user: 'gina', passwd: 'pw' }).expect(200);
      const device = await smtp.nextMail(since);
      expect(device.to).toEqual(['gina@example.com']);
      expect(device.body).toMatch(/Hello gina, your account was signed in to from a browser it had not been used with before: Chrome on macOS/);

      const gina = new Session(t);
      gina.jar.keep(login);
      const enrolled = await gina.post('/auth/2fa/enroll');
      expect(enrolled.status).toBe(200);
      const beforeOn = smtp.mails.length;
      expect((await gina.post('/auth/2fa/confirm', { code: totpCode(enrolled.body.secret as string, Math.floor(Date.now() / 1000)) })).status).toBe(200);
      expect((await smtp.nextMail(beforeOn)).body).toMatch(/Hello gina, on your account two-factor authentication was turned on\./);
      const root = new Session(t);
      await root.login('root');
      const before = smtp.mails.length;
      expect((await root.post(`/auth/admin/users/${login.body.id as string}/ban`, { reason: 'test' })).status).toBe(200);
      await eventually(async () => expect(smtp.mails.length).toBeGreaterThan(before), 5000, 20);
      const banned = smtp.mails[smtp.mails.length - 1]!;
      expect(banned.body).toMatch(/your account was suspended by an administrator/);
      for (const mail of smtp.mails.slice(since)) {
        expect(mail.body).not.toMatch(/https?:\/\//);
        expect(mail.body).not.toContain(String(enrolled.body.secret));
        expect(mail.body).not.toContain(gina.jar.get('JWT') ?? 'no-jwt');
      }
    } finally {
      await t.auth.close();
    }
  });

  it('refuses unknown kinds and both options at once', () => {
    const sender = new EmailSender({ host: '127.0.0.1', port: 9, from: 'a@app.example' });
    expect(() => adminApp({ notifications: { sender, off: ['nope' as never] } })).toThrow(/no notice kind/);
    expect(() => adminApp({ notifications: { sender }, credentialNotices: { sender } })).toThrow(/not both/);
  });
});
