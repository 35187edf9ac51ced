import request from 'supertest';
import { activeUser, makeAccountApp, mailTo } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp } from '../organizations/org-helpers';
import { adminApp, Session } from '../admin/admin-helpers';
import { EmailSender } from '../../src';
import { eventually } from '../support/eventually';
import { totpCode } from '../support/totp-code';

describe('mails in the language of the request that sent them (through smtp-server)', () => {
  let smtp: SmtpPeer;
  beforeAll(async () => {
    smtp = await startSmtpPeer();
  });
  afterAll(() => smtp.close());

  it('Accept-Language: de gets the German reset mail, es the Spanish activation; a template the app gives is used as given', async () => {
    const { app, accounts } = makeAccountApp(smtp);
    const { id } = await activeUser(app, smtp, 'greta@example.com');
    expect(id).not.toBe('');
    let since = smtp.mails.length;
    await request(app).post('/account/password/forgot').set('Accept-Language', 'de-AT,de;q=0.9').send({ Email: 'greta@example.com' }).expect(202);
    const reset = await mailTo(smtp, 'greta@example.com', since);
    expect(reset.body).toContain('Jemand hat das Zurücksetzen des Passworts für das Konto greta@example.com angefordert. Der Code lautet:');
    expect(reset.body).toMatch(/\n[A-Za-z0-9_-]{6,}\n/);

    since = smtp.mails.length;
    await request(app).post('/account/signup').set('Accept-Language', 'es-MX').send({ Email: 'sofia@example.com', Pwd: 'correct horse', PwdRepeat: 'correct horse' }).expect(202);
    expect((await mailTo(smtp, 'sofia@example.com', since)).body).toContain('¡Bienvenido! Activa tu cuenta');
    // The refusals of the account service speak it too (its own format, the same Code and code).
    const taken = await request(app).post('/account/signup').set('Accept-Language', 'fr').send({ Email: 'greta@example.com', Pwd: 'correct horse', PwdRepeat: 'correct horse' });
    expect(taken.body).toEqual({ Code: 1.5, Message: 'DupEmail', Description: 'Un compte existe déjà avec cette adresse e-mail.', code: 'email_taken' });
    await accounts.close();

    const own = makeAccountApp(smtp, { resetTemplate: 'Your code: {{.Code}}' });
    await activeUser(own.app, smtp, 'owen@example.com');
    since = smtp.mails.length;
    await request(own.app).post('/account/password/forgot').set('Accept-Language', 'de').send({ Email: 'owen@example.com' }).expect(202);
    expect((await mailTo(smtp, 'owen@example.com', since)).body).toMatch(/^Your code: \S+/);
    await own.accounts.close();
  });

  it("a security notice in the language of its owner's request; a ban's in the default language", async () => {
    const t = adminApp({
      twoFactor: { key: 'notify-test-two-factor-key-0123456789' },
      notifications: { sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'security@app.example', timeout: 5000 }), addressOf: (user) => `${user.name}@example.com` },
    });
    try {
      const login = await request(t.app).post('/auth/local/login').send({ user: 'hanna', passwd: 'pw' }).expect(200);
      const hanna = new Session(t);
      hanna.jar.keep(login);
      const enrolled = await hanna.jar.on(request(t.app).post('/auth/2fa/enroll').set('Accept-Language', 'de')).send({});
      const since = smtp.mails.length;
      const code = totpCode(enrolled.body.secret as string, Math.floor(Date.now() / 1000));
      expect((await hanna.jar.on(request(t.app).post('/auth/2fa/confirm').set('Accept-Language', 'de')).send({ code })).status).toBe(200);
      const on = (await smtp.nextMail(since)).body.replace(/=\r?\n/g, '');
      expect(on).toContain('Hallo hanna, bei Ihrem Konto gilt: die Zwei-Faktor-Authentifizierung wurde eingeschaltet.');
      const root = new Session(t);
      await root.login('root');
      const before = smtp.mails.length;
      await root.jar
        .on(
          request(t.app)
            .post(`/auth/admin/users/${login.body.id as string}/ban`)
            .set('Accept-Language', 'fr'),
        )
        .send({ reason: 'test' });
      await eventually(async () => expect(smtp.mails.length).toBeGreaterThan(before), 5000, 20);
      expect(smtp.mails[smtp.mails.length - 1]!.body).toMatch(/your account was suspended by an administrator/);
    } finally {
      await t.auth.close();
    }
  });

  it("an invitation in the inviter's language, its expiry written with Intl", async () => {
    const t = orgApp(smtp, 'memory://');
    const owner = await new Browser(t.app).login('olivia');
    const { id: org } = (await owner.post('/auth/orgs', { name: 'Fromagerie' })).body as { id: string };
    const since = smtp.mails.length;
    const sent = await owner.jar.on(request(t.app).post(`/auth/orgs/${org}/invitations`).set('Accept-Language', 'fr')).send({ email: 'lea@example.com', role: 'member' });
    expect(sent.status).toBe(201);
    const mail = (await smtp.nextMail(since)).body.replace(/=\r?\n/g, '');
    expect(mail).toContain('Vous êtes invité à rejoindre Fromagerie');
    const month = new Intl.DateTimeFormat('fr', { month: 'long', timeZone: 'UTC' }).format((sent.body as { expires: number }).expires);
    expect(mail).toContain(month);
    await t.auth.close();
  });
});
