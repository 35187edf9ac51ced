import request from 'supertest';
import { hashId, senderFunc } from '../../src';
import { CookieJar } from '../support/cookie-jar';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { accountsOn } from '../support/account-app';
import { Browser } from '../organizations/org-helpers';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from './sso-helpers';
import { awayFromStepEdge, codeNow } from '../support/totp-code';

const peers = ssoPeers();

describe('enforced SSO for a verified domain', () => {
  let t: SsoApp;
  let connectionId: string;
  const mails: string[] = [];
  beforeEach(async () => {
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    const accountService = accountsOn(peers.smtp);
    t = await ssoApp(
      peers.smtp,
      peers.dns,
      'memory://',
      { privateOrigins: [peers.idp.origin] },
      { plugins: [accountService], rateLimits: false, twoFactor: { key: 'two-factor-key-0123456789abcdef-0123' } },
    );
    t.auth.addVerifyProvider(
      'email',
      'token {{.Token}}',
      senderFunc((to) => void mails.push(to)),
    );
    t.app.use('/account', accountService.router);
    ({ id: connectionId } = await samlConnection(t, peers.idp));
  });
  afterEach(() => t.auth.close());

  const passwordLogin = (user: string): Promise<request.Response> => request(t.app).post('/auth/local/login').send({ user, passwd: 'pw' });

  it('refuses password, e-mail link and sign-up for its addresses with sso_required; SSO and other domains go on; sessions made before live on', async () => {
    const before = new Browser(t.app);
    before.jar.keep(await passwordLogin('someone@customer.test'));
    expect((await before.get('/auth/user')).status).toBe(200);

    const on = await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true });
    expect([on.status, on.body.enforce]).toEqual([200, true]);

    const refused = await passwordLogin('Someone@Customer.TEST');
    expect([refused.status, refused.body.code]).toEqual([403, 'sso_required']);
    expect(refused.body.error).toContain('/sso/login');
    const link = await request(t.app).get('/auth/email/login?user=someone&address=someone@customer.test');
    expect([link.status, link.body.code]).toEqual([403, 'sso_required']);
    expect(mails).toEqual([]);
    const signup = await request(t.app).post('/account/signup').send({ Email: 'new@customer.test', Pwd: 'a long password 123', PwdRepeat: 'a long password 123' });
    expect(signup.status).toBe(403);
    const token = await request(t.app).post('/account/tokens').send({ grant_type: 'password', email: 'new@customer.test', password: 'a long password 123' });
    expect(token.status).toBe(403);

    expect((await passwordLogin('someone@elsewhere.test')).status).toBe(200);
    expect((await new SsoBrowser(t).login(peers.idp)).status).toBe(200);
    expect((await before.get('/auth/user')).status).toBe(200);

    // The last enabled connection stays while enforcement is on.
    const off = await t.owner.patch(`/auth/orgs/acme/sso/connections/${connectionId}`, { enabled: false });
    expect(off.status).toBe(409);
    expect((await t.owner.delete(`/auth/orgs/acme/sso/connections/${connectionId}`)).status).toBe(409);
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: false })).status).toBe(200);
    expect((await passwordLogin('someone@customer.test')).status).toBe(200);
    await t.auth.events.flush();
    const { events } = await t.auth.events.list({ types: ['sso.domain.enforced'] });
    expect(events.map((e) => e.data.enforce)).toEqual([false, true]);
  });

  it('applies to the canonical address on every path that authenticates or recovers one: any spelling, the password grant, reset codes (docs/security.md, rule 5)', async () => {
    const password = 'a long password 123';
    const made = await request(t.app).post('/account/signup').send({ Email: 'dora@customer.test', Pwd: password, PwdRepeat: password });
    expect(made.status).toBe(202);
    const link = /\/active\/[^\s"<]+/.exec((await peers.smtp.nextMail()).body.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0] as string;
    expect((await request(t.app).get(`/account${link}`)).status).toBe(200);
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(200);
    const sent = peers.smtp.mails.length;

    for (const spelling of ['dora@customer.test', 'dora@customer.test ', 'dora@customer.test\t', ' DORA@Customer.Test', '\u00a0dora@customer.test\n']) {
      const answers = {
        token: await request(t.app).post('/account/tokens').send({ grant_type: 'password', email: spelling, password }),
        forgot: await request(t.app).post('/account/password/forgot').send({ Email: spelling }),
        reset: await request(t.app)
          .post('/account/password/reset')
          .send({ Email: spelling, Code: '0'.repeat(32), NewPwd: `${password}!`, NewPwdRepeat: `${password}!` }),
        signup: await request(t.app).post('/account/signup').send({ Email: spelling, Pwd: password, PwdRepeat: password }),
        direct: await passwordLogin(spelling),
      };
      // 403 sso_required; the direct login refuses a name with a control character outright (400).
      for (const [path, res] of Object.entries(answers))
        expect([JSON.stringify(spelling), path, res.status === 400 && path === 'direct' && /[\t\n]/.test(spelling) ? 403 : res.status]).toEqual([JSON.stringify(spelling), path, 403]);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(peers.smtp.mails.length).toBe(sent);
  });

  it('a user name whose checker gives an address of the enforced domain: the right password is answered as a wrong one, so a stranger guessing learns nothing of it', async () => {
    t.auth.addDirectProvider('staff', (user, passwd) => (passwd === 'right' ? { subject: user, email: `${user}@customer.test` } : false));
    t.auth.addDirectProvider('contractors', (user, passwd) => (passwd === 'right' ? { subject: user, email: `${user}@elsewhere.test` } : false));
    const login = (provider: string, passwd: string): Promise<request.Response> => request(t.app).post(`/auth/${provider}/login`).send({ user: 'pat', passwd });
    expect((await login('staff', 'right')).status).toBe(200);

    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(200);
    const right = await login('staff', 'right');
    const wrong = await login('staff', 'wrong');
    expect([right.status, right.body.code]).toEqual([403, 'credentials_rejected']);
    expect(right.body).toEqual(wrong.body);
    expect(String(right.headers['set-cookie'] ?? '')).not.toMatch(/JWT=[^;]+\./);
    // An address of another domain signs in, and a typed address of the domain still hears why.
    expect((await login('contractors', 'right')).status).toBe(200);
    const typed = await request(t.app).post('/auth/staff/login').send({ user: 'pat@customer.test', passwd: 'right' });
    expect([typed.status, typed.body.code]).toEqual([403, 'sso_required']);
  });

  it('reaches every other login of an address in the domain: a passkey registered before enforcement is refused after it', async () => {
    t.auth.addDirectProvider('mail', (user, passwd) => (passwd === 'pw' ? { subject: user, email: user } : false));
    t.auth.addPasskeyProvider('passkey', { userIdOf: (name) => hashId('mail', name) });
    const pat = new Browser(t.app);
    pat.jar.keep(await request(t.app).post('/auth/mail/login').send({ user: 'pat@customer.test', passwd: 'pw' }).expect(200));
    const soft = new SoftAuthenticator('http://127.0.0.1:8080');
    const options = await pat.post('/auth/passkey/register', {});
    expect((await pat.post('/auth/passkey/register', { response: soft.create(options.body) })).status).toBe(200);
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(200);
    const browser = new CookieJar();
    const challenge = browser.keep(await browser.on(request(t.app).post('/auth/passkey/login')).send({}).expect(200));
    const refused = await browser.on(request(t.app).post('/auth/passkey/login')).send({ response: soft.get(challenge.body) });
    expect([refused.status, refused.body.code]).toEqual([403, 'sso_required']);
    expect(String(refused.headers['set-cookie'] ?? '')).not.toMatch(/JWT=[^;]+\./);
  });

  it("a login through another organization's connection, linked to an account of the enforced domain, is refused; the IdP's amr never stands for that account's own second factor", async () => {
    const MFA = 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract';
    const password = 'a long password 123';
    expect((await request(t.app).post('/account/signup').send({ Email: 'dora@customer.test', Pwd: password, PwdRepeat: password })).status).toBe(202);
    const link = /\/active\/[^\s"<]+/.exec((await peers.smtp.nextMail()).body.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0] as string;
    expect((await request(t.app).get(`/account${link}`)).status).toBe(200);
    // Dora has an account with two-factor on, and an organization of her own with an IdP.
    const dora = new SsoBrowser(t);
    dora.jar.keep(await request(t.app).post('/auth/accounts/login').send({ user: 'dora@customer.test', passwd: password }).expect(200));
    const post = async (path: string, body: object = {}): Promise<request.Response> => dora.jar.keep(await dora.jar.on(request(t.app).post(path)).send(body));
    expect((await post('/auth/orgs', { name: 'Side', slug: 'side' })).status).toBe(201);
    const made = await post('/auth/orgs/side/sso/connections', { kind: 'saml', name: 'Side IdP', metadataXml: peers.idp.metadata, mfaContexts: [MFA] });
    expect(made.status).toBe(201);
    const sideMetadata = (await request(t.app).get(`/auth/sso/metadata/${made.body.id as string}`)).text;
    const enrolled = await post('/auth/2fa/enroll');
    await awayFromStepEdge();
    expect((await post('/auth/2fa/confirm', { code: codeNow(enrolled.body.secret as string) })).status).toBe(200);
    // She links her side IdP's login to her account.
    peers.idp.trust(sideMetadata);
    peers.idp.user = { nameId: 'dora-at-side', attributes: {}, authnContext: MFA };
    expect((await post('/auth/sso/link')).status).toBe(200);
    expect((await dora.login(peers.idp, 'org=side')).status).toBe(200);

    // The linked login, with the IdP's MFA context, still waits for her own second factor.
    const waiting = await new SsoBrowser(t).login(peers.idp, 'org=side');
    expect(waiting.status).toBe(202);

    // acme enforces customer.test: her side IdP no longer signs her in.
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(200);
    const refused = await new SsoBrowser(t).login(peers.idp, 'org=side');
    expect([refused.status, refused.body.code]).toEqual([403, 'sso_required']);
  });

  it('enforces only verified domains of an organization with an enabled connection, changed with a fresh login', async () => {
    await t.owner.post('/auth/orgs/acme/sso/domains', { domain: 'pending.test' });
    const pending = await t.owner.patch('/auth/orgs/acme/sso/domains/pending.test', { enforce: true });
    expect([pending.status, pending.body.code]).toEqual([400, 'domain_unverified']);
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: 'yes' })).status).toBe(400);
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${connectionId}`, { enabled: false })).status).toBe(200);
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(409);
    const rival = await new Browser(t.app).login('rick');
    expect((await rival.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(404);
    expect((await passwordLogin('someone@customer.test')).status).toBe(200);
  });
});
