import request from 'supertest';
import { senderFunc } from '../../src';
import { scim, type ScimPlugin } from '../../src/plugins/scim';
import { Browser, tokenOf } from '../organizations/org-helpers';
import { Directory } from '../scim/scim-helpers';
import { awayFromStepEdge, codeNow } from '../support/totp-code';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from '../sso/sso-helpers';

const peers = ssoPeers();

/**
 * The red team's path: an organization's admin controls its directory and its IdP; the owner's
 * account has the owner's address in the verified domain, a password of its own and an app-admin grant.
 */
describe("a tenant's admin cannot take an account its organization did not make (docs/security.md, rule 1)", () => {
  let t: SsoApp;
  let plugin: ScimPlugin;
  let owner: Browser;
  let ownerId: string;
  let admin: Browser;
  beforeEach(async () => {
    plugin = scim();
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { plugins: [plugin], twoFactor: { key: 'two-factor-key-0123456789abcdef-0123' } });
    // A login that vouches for its address (as a password account does), for the owner of customer.test.
    t.auth.addDirectProvider('mail', (user, passwd) => (passwd === 'pw' ? { subject: user, email: user } : false));
    owner = new Browser(t.app);
    owner.jar.keep(await request(t.app).post('/auth/mail/login').send({ user: 'olivia@customer.test', passwd: 'pw' }).expect(200));
    ownerId = ((await owner.get('/auth/user')).body as { id: string }).id;
    // Olga (who made acme) makes Olivia an owner; Olivia is an app admin too.
    const since = peers.smtp.mails.length;
    expect((await t.owner.post('/auth/orgs/acme/invitations', { email: 'olivia@customer.test', role: 'owner' })).status).toBe(201);
    expect((await owner.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
    await t.auth.users.setAdminGrant(ownerId, true);
    // Adam is an admin of acme, with the power to set up SSO and SCIM.
    admin = await new Browser(t.app).login('adam');
    const next = peers.smtp.mails.length;
    expect((await t.owner.post('/auth/orgs/acme/invitations', { email: 'adam@customer.test', role: 'admin' })).status).toBe(201);
    expect((await admin.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(next)).body) })).status).toBe(200);
  });
  afterEach(() => t.auth.close());

  it("provisioning the owner's address makes a person of its own, and the admin's IdP login as that address is never the owner", async () => {
    await samlConnection({ ...t, owner: admin }, peers.idp, { mfaContexts: ['urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract'] });
    const directory = await Directory.of(t.app, admin, 'acme');
    const made = await directory.createUser('olivia@customer.test');
    expect(made.status).toBe(201);
    const person = await plugin.users.get(t.orgId, made.body.id as string);
    expect(person.userId).not.toBe(ownerId);

    peers.idp.user = { nameId: 'olivia@customer.test', attributes: { email: ['olivia@customer.test'] }, authnContext: 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract' };
    const impostor = new SsoBrowser(t);
    const login = await impostor.login(peers.idp, 'email=olivia@customer.test');
    expect(login.status).toBe(200);
    const signedIn = (await impostor.get('/auth/user')).body as { id: string; attrs?: Record<string, unknown> };
    expect(signedIn.id).not.toBe(ownerId);
    expect(signedIn.attrs?.admin).toBeUndefined();
    expect((await impostor.get('/admin')).status).toBe(403);
    // The owner is untouched: still an owner, still signed in.
    expect((await owner.get('/auth/user')).status).toBe(200);
    const roles = ((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === ownerId)?.roles;
    expect(roles).toEqual(['owner']);
  });

  it('the holder of an account may link it to the directory themselves: then the directory manages it and the IdP signs it in, its own second factor still asked', async () => {
    await samlConnection({ ...t, owner: admin }, peers.idp, { mfaContexts: ['urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract'] });
    // Lena joined by invitation with a password account, and has two-factor on.
    const lena = new Browser(t.app);
    lena.jar.keep(await request(t.app).post('/auth/mail/login').send({ user: 'lena@customer.test', passwd: 'pw' }).expect(200));
    const lenaId = ((await lena.get('/auth/user')).body as { id: string }).id;
    const since = peers.smtp.mails.length;
    expect((await t.owner.post('/auth/orgs/acme/invitations', { email: 'lena@customer.test', role: 'member' })).status).toBe(201);
    expect((await lena.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
    const enrolled = await lena.post('/auth/2fa/enroll');
    await awayFromStepEdge();
    expect((await lena.post('/auth/2fa/confirm', { code: codeNow(enrolled.body.secret as string) })).status).toBe(200);

    const directory = await Directory.of(t.app, admin, 'acme');
    const made = await directory.createUser('lena@customer.test');
    expect((await plugin.users.get(t.orgId, made.body.id as string)).userId).not.toBe(lenaId);
    expect((await lena.get('/auth/orgs/acme/scim/link')).body).toEqual({ person: { id: made.body.id, userName: 'lena@customer.test' } });
    // Not by someone else, and not for another address.
    const other = await new Browser(t.app).login('mallory');
    expect((await other.get('/auth/orgs/acme/scim/link')).body).toEqual({ person: null });
    const refused = await other.post('/auth/orgs/acme/scim/link');
    expect([refused.status, refused.body.code]).toEqual([403, 'not_a_member']);
    const linked = await lena.post('/auth/orgs/acme/scim/link');
    expect([linked.status, linked.body.linked]).toEqual([200, true]);
    expect((await plugin.users.get(t.orgId, made.body.id as string)).userId).toBe(lenaId);
    expect((await lena.post('/auth/orgs/acme/scim/link')).status).toBe(404);

    // The IdP signs her in to her own account, and still waits for her own second factor.
    peers.idp.user = { nameId: 'lena@customer.test', attributes: { email: ['lena@customer.test'] }, authnContext: 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract' };
    const viaIdp = new SsoBrowser(t);
    const login = await viaIdp.login(peers.idp, 'email=lena@customer.test');
    expect(login.status).toBe(202);
    expect((await viaIdp.get('/auth/user')).status).toBe(401);
    // The directory manages her membership now.
    expect((await directory.patchUser(made.body.id as string, { op: 'replace', path: 'active', value: false })).status).toBe(200);
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string }>).map((m) => m.userId)).not.toContain(lenaId);
  });

  it("no other entry path lands on the owner's account by its address: an e-mail link, an invitation accepted by someone else", async () => {
    const mails: string[] = [];
    t.auth.addVerifyProvider(
      'email',
      '{{.Token}}',
      senderFunc((_to, text) => void mails.push(text)),
    );
    expect((await request(t.app).get('/auth/email/login?user=olivia&address=olivia@customer.test')).status).toBe(200);
    const byLink = await request(t.app).get(`/auth/email/login?token=${encodeURIComponent(mails[0]?.trim() as string)}`);
    expect(byLink.status).toBe(200);
    expect(byLink.body.id).not.toBe(ownerId);

    const since = peers.smtp.mails.length;
    expect((await t.owner.post('/auth/orgs/acme/invitations', { email: 'olivia@customer.test', role: 'admin' })).status).toBe(201);
    const mallory = await new Browser(t.app).login('mallory');
    expect((await mallory.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
    expect(((await mallory.get('/auth/user')).body as { id: string }).id).not.toBe(ownerId);
    const roles = ((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === ownerId)?.roles;
    expect(roles).toEqual(['owner']);
    expect((await owner.get('/auth/user')).status).toBe(200);
  });

  it("a person the organization's own IdP made is still taken over by its directory (and signs in as one)", async () => {
    await samlConnection({ ...t, owner: admin }, peers.idp);
    peers.idp.user = { nameId: 'bea@customer.test', attributes: { email: ['bea@customer.test'] } };
    const bea = new SsoBrowser(t);
    expect((await bea.login(peers.idp, 'email=bea@customer.test')).status).toBe(200);
    const beaId = ((await bea.get('/auth/user')).body as { id: string }).id;
    const directory = await Directory.of(t.app, admin, 'acme');
    const made = await directory.createUser('bea@customer.test');
    expect((await plugin.users.get(t.orgId, made.body.id as string)).userId).toBe(beaId);
  });

  it('an account made by the IdP that belongs to another organization too, or holds an app-admin grant, is not taken over', async () => {
    await samlConnection({ ...t, owner: admin }, peers.idp);
    const directory = await Directory.of(t.app, admin, 'acme');
    for (const [name, setup] of [
      ['cora', async (_id: string, browser: SsoBrowser) => void (await browser.jar.on(request(t.app).post('/auth/orgs')).send({ name: 'Side project' }).expect(201))],
      ['dora', async (id: string) => void (await t.auth.users.setAdminGrant(id, true))],
    ] as const) {
      peers.idp.user = { nameId: `${name}@customer.test`, attributes: { email: [`${name}@customer.test`] } };
      const browser = new SsoBrowser(t);
      expect((await browser.login(peers.idp, `email=${name}@customer.test`)).status).toBe(200);
      const id = ((await browser.get('/auth/user')).body as { id: string }).id;
      await setup(id, browser);
      const made = await directory.createUser(`${name}@customer.test`);
      expect([name, (await plugin.users.get(t.orgId, made.body.id as string)).userId === id]).toEqual([name, false]);
    }
  });
});
