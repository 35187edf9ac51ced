import request from 'supertest';
import { hashId } from '../../src';
import { CookieJar } from '../support/cookie-jar';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { accountsOn } from '../support/account-app';
import { Browser } from '../organizations/org-helpers';
import { samlConnection, ssoApp, type SsoApp, ssoPeers } from '../sso/sso-helpers';

const peers = ssoPeers();

/** Ways of signing in that an attack found around enforcement: each judged by the same `sign-in` and `sign-up` hooks now. */
describe('SSO enforcement reaches every way in', () => {
  let t: SsoApp;
  beforeEach(async () => {
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    const accountService = accountsOn(peers.smtp);
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { plugins: [accountService], rateLimits: false });
    t.app.use('/account', accountService.router);
    await samlConnection(t, peers.idp);
  });
  afterEach(() => t.auth.close());

  it('a passkey of a direct-provider user named by an address of the enforced domain (no e-mail anywhere) is refused: the name is the address', async () => {
    t.auth.addPasskeyProvider('passkey', { userIdOf: (name) => hashId('local', name) });
    const pat = new Browser(t.app);
    pat.jar.keep(await request(t.app).post('/auth/local/login').send({ user: 'pat@customer.test', passwd: 'pw' }).expect(200));
    const soft = new SoftAuthenticator('http://127.0.0.1:8080');
    const options = await pat.post('/auth/passkey/register', {});
    expect((await pat.post('/auth/passkey/register', { response: soft.create(options.body) })).status).toBe(200);
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(200);
    // The password route judges the name as the address: refused.
    const pw = await request(t.app).post('/auth/local/login').send({ user: 'pat@customer.test', passwd: 'pw' });
    expect([pw.status, pw.body.code]).toEqual([403, 'sso_required']);
    // The passkey of the same user: judged only by an e-mail the directory record lacks.
    const browser = new CookieJar();
    const challenge = browser.keep(await browser.on(request(t.app).post('/auth/passkey/login')).send({}).expect(200));
    const res = await browser.on(request(t.app).post('/auth/passkey/login')).send({ response: soft.get(challenge.body) });
    expect([res.status, res.body.code]).toEqual([403, 'sso_required']);
  });
  it('a sign-up pending since before enforcement is not finished: /signup/resend is refused and mails nothing', async () => {
    const password = 'a long password 123';
    expect((await request(t.app).post('/account/signup').send({ Email: 'eve@customer.test', Pwd: password, PwdRepeat: password })).status).toBe(202);
    await peers.smtp.nextMail();
    expect((await t.owner.patch('/auth/orgs/acme/sso/domains/customer.test', { enforce: true })).status).toBe(200);
    const again = await request(t.app).post('/account/signup').send({ Email: 'eve@customer.test', Pwd: password, PwdRepeat: password });
    expect([again.status, again.body.code]).toEqual([403, 'sso_required']);
    // In the account service's shape: a refusal (not WebAuth's "InvalidInput"), naming where to start, mount path included.
    expect(again.body).toMatchObject({ Code: 1, Message: 'Forbidden' });
    expect(again.body.Description).toMatch(/start at http:\/\/[^/]+\/auth\/sso\/login\?email=<address>$/);
    const mailed = peers.smtp.mails.length;
    const resend = await request(t.app).post('/account/signup/resend').send({ Email: 'eve@customer.test', Pwd: password });
    expect([resend.status, resend.body.code]).toEqual([403, 'sso_required']);
    await new Promise((r) => setTimeout(r, 300));
    expect(peers.smtp.mails.length).toBe(mailed);
  });
});
