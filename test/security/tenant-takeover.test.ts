import request from 'supertest';
import { scim, type ScimPlugin } from '../../src/plugins/scim';
import { Browser, tokenOf } from '../organizations/org-helpers';
import { Directory } from '../scim/scim-helpers';
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
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { plugins: [plugin] });
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
