import request from 'supertest';
import { scim, type ScimPlugin } from '../../src/plugins/scim';
import { Browser, tokenOf } from '../organizations/org-helpers';
import { Directory } from '../scim/scim-helpers';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from '../sso/sso-helpers';

const peers = ssoPeers();
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** One role hierarchy for the app's routes, SCIM tokens and SSO role maps (docs/security.md, rule 2). */
describe('a directory or an IdP does to a member only what its maker could do in the app', () => {
  let t: SsoApp;
  let plugin: ScimPlugin;
  let admin: Browser;
  beforeEach(async () => {
    plugin = scim();
    // Revocations checked on every request: an ended session shows at once.
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { plugins: [plugin], revocationCheck: 'every-request' });
    admin = await member('adam', 'admin');
  });
  afterEach(() => t.auth.close());

  /** A user `name` who accepted an invitation of acme's owner as `role`. */
  async function member(name: string, role: string): Promise<Browser> {
    const browser = await new Browser(t.app).login(name);
    const since = peers.smtp.mails.length;
    expect((await t.owner.post('/auth/orgs/acme/invitations', { email: `${name}@customer.test`, role })).status).toBe(201);
    expect((await browser.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
    return browser;
  }
  const rolesOf = async (userId: string): Promise<string[] | undefined> =>
    ((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === userId)?.roles;
  const ssoLogin = async (nameId: string, groups: string[] = []): Promise<SsoBrowser> => {
    peers.idp.user = { nameId, attributes: { email: [nameId], groups } };
    const browser = new SsoBrowser(t);
    expect((await browser.login(peers.idp, `email=${nameId}`)).status).toBe(200);
    return browser;
  };

  it("an admin's token cannot deactivate or delete an owner (403, nothing changed); an owner's token can", async () => {
    await samlConnection(t, peers.idp);
    const ownersDirectory = await Directory.of(t.app, t.owner, 'acme', 'owner token');
    const adminsDirectory = await Directory.of(t.app, admin, 'acme', 'admin token');
    const made = await ownersDirectory.createUser('sam@customer.test');
    const scimId = made.body.id as string;
    const samId = (await plugin.users.get(t.orgId, scimId)).userId;
    expect((await t.owner.patch(`/auth/orgs/acme/members/${samId}`, { roles: ['owner'] })).status).toBe(200);
    const sam = await ssoLogin('sam@customer.test');

    for (const attempt of [
      () => adminsDirectory.patchUser(scimId, { op: 'replace', path: 'active', value: false }),
      () => adminsDirectory.send('put', `/Users/${scimId}`, { userName: 'sam@customer.test', active: false }),
      () => adminsDirectory.send('delete', `/Users/${scimId}`),
    ]) {
      const res = await attempt();
      expect([res.status, res.body.detail]).toEqual([403, expect.stringContaining('only an owner removes an owner')]);
    }
    expect((await ownersDirectory.send('get', `/Users/${scimId}`)).body.active).toBe(true);
    expect(await rolesOf(samId)).toEqual(['owner']);
    expect((await sam.get('/auth/user')).status).toBe(200);

    expect((await ownersDirectory.patchUser(scimId, { op: 'replace', path: 'active', value: false })).status).toBe(200);
    expect(await rolesOf(samId)).toBeUndefined();
  });

  it('deprovisioning ends what the organization granted, not the sessions a person uses in another organization', async () => {
    await samlConnection(t, peers.idp);
    const directory = await Directory.of(t.app, t.owner, 'acme');
    const made = await directory.createUser('pat@customer.test');
    const pat = await ssoLogin('pat@customer.test');
    // Pat joins another organization too.
    const other = await new Browser(t.app).login('olaf');
    expect((await other.post('/auth/orgs', { name: 'Other', slug: 'other' })).status).toBe(201);
    const since = peers.smtp.mails.length;
    expect((await other.post('/auth/orgs/other/invitations', { email: 'pat@elsewhere.test', role: 'member' })).status).toBe(201);
    expect((await pat.jar.on(request(t.app).post('/auth/orgs/invitations/accept')).send({ token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);

    expect((await directory.patchUser(made.body.id as string, { op: 'replace', path: 'active', value: false })).status).toBe(200);
    expect((await pat.get('/auth/user')).status).toBe(200);
    expect((await pat.get('/auth/orgs/acme')).status).not.toBe(200);
    expect((await pat.get('/auth/orgs/other')).status).toBe(200);
  });

  it("demotion ends the admin's SCIM tokens and SSO connections, with events", async () => {
    const { id: connection } = await samlConnection({ ...t, owner: admin }, peers.idp);
    const directory = await Directory.of(t.app, admin, 'acme');
    expect((await directory.send('get', '/Users')).status).toBe(200);
    expect((await t.owner.patch(`/auth/orgs/acme/members/${admin.id}`, { roles: ['member'] })).status).toBe(200);

    await t.auth.events.flush();
    expect((await directory.send('get', '/Users')).status).toBe(401);
    const view = ((await t.owner.get('/auth/orgs/acme/sso/connections')).body as Array<{ id: string; enabled: boolean }>).find((c) => c.id === connection);
    expect(view?.enabled).toBe(false);
    const { events } = await t.auth.events.list({ types: ['scim.token.revoked', 'sso.connection.disabled'] });
    expect(events.map((e) => [e.type, e.data.reason]).sort()).toEqual([
      ['scim.token.revoked', 'demoted'],
      ['sso.connection.disabled', 'demoted'],
    ]);
  });

  it("another admin's change does not keep a removed admin's connection alive; an owner's change adopts it", async () => {
    const { id: first } = await samlConnection({ ...t, owner: admin }, peers.idp);
    const accomplice = await member('ada', 'admin');
    expect((await accomplice.patch(`/auth/orgs/acme/sso/connections/${first}`, { name: 'Renamed by Ada' })).status).toBe(200);
    expect((await t.owner.delete(`/auth/orgs/acme/members/${admin.id}`)).status).toBe(200);
    await t.auth.events.flush();
    const enabled = async (id: string): Promise<boolean | undefined> =>
      ((await t.owner.get('/auth/orgs/acme/sso/connections')).body as Array<{ id: string; enabled: boolean }>).find((c) => c.id === id)?.enabled;
    expect(await enabled(first)).toBe(false);

    const maker = await member('abe', 'admin');
    const { id: second } = await samlConnection({ ...t, owner: maker }, peers.idp);
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${second}`, { name: 'Reviewed by the owner' })).status).toBe(200);
    expect((await t.owner.delete(`/auth/orgs/acme/members/${maker.id}`)).status).toBe(200);
    await t.auth.events.flush();
    expect(await enabled(second)).toBe(true);
  });

  it("a group map gives what its author could give now: a demoted admin's map makes members", async () => {
    expect((await admin.put('/auth/orgs/acme/scim/settings', { groupRoles: { engineers: 'admin' } })).status).toBe(200);
    expect((await t.owner.patch(`/auth/orgs/acme/members/${admin.id}`, { roles: ['member'] })).status).toBe(200);
    const directory = await Directory.of(t.app, t.owner, 'acme');
    const made = await directory.createUser('eve@customer.test');
    expect((await directory.send('post', '/Groups', { schemas: [GROUP], displayName: 'Engineers', members: [{ value: made.body.id }] })).status).toBe(201);
    expect(await rolesOf((await plugin.users.get(t.orgId, made.body.id as string)).userId)).toEqual(['member']);
  });
});

/** What an attacking admin tried after the first fixes (a second red-team pass). */
describe("an admin's IdP and directory act only within the admin's power", () => {
  let t: SsoApp;
  let plugin: ScimPlugin;
  let admin: Browser;
  beforeEach(async () => {
    plugin = scim();
    t = await hierarchyApp(plugin);
    admin = await join(t, 'adam', 'admin');
  });
  afterEach(() => t.auth.close());

  const ssoLogin = async (nameId: string): Promise<{ browser: SsoBrowser; status: number; code?: string }> => {
    peers.idp.user = { nameId, attributes: { email: [nameId] } };
    const browser = new SsoBrowser(t);
    const res = await browser.login(peers.idp, `email=${nameId}`);
    return { browser, status: res.status, code: res.body?.code as string | undefined };
  };
  const rolesOf = async (userId: string): Promise<string[] | undefined> =>
    ((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === userId)?.roles;

  it("an owner the organization's IdP made is never signed in by a connection an admin set up or changed last", async () => {
    const { id } = await samlConnection(t, peers.idp);
    const bea = await ssoLogin('bea@customer.test');
    const beaId = ((await bea.browser.get('/auth/user')).body as { id: string }).id;
    expect((await t.owner.patch(`/auth/orgs/acme/members/${beaId}`, { roles: ['owner'] })).status).toBe(200);
    expect((await admin.patch(`/auth/orgs/acme/sso/connections/${id}`, { name: 'Changed by the admin' })).status).toBe(200);
    const again = await ssoLogin('bea@customer.test');
    expect([again.status, again.code]).toEqual([403, 'role_required']);
    // An owner's review adopts the connection again.
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${id}`, { name: 'Reviewed' })).status).toBe(200);
    expect((await ssoLogin('bea@customer.test')).status).toBe(200);
  });

  it("an admin's token does not take over an owner the IdP made, and never rewrites a linked account's name or address", async () => {
    await samlConnection(t, peers.idp);
    const bea = await ssoLogin('bea@customer.test');
    const beaId = ((await bea.browser.get('/auth/user')).body as { id: string }).id;
    expect((await t.owner.patch(`/auth/orgs/acme/members/${beaId}`, { roles: ['owner'] })).status).toBe(200);
    const adminsDirectory = await Directory.of(t.app, admin, 'acme');
    const made = await adminsDirectory.createUser('bea@customer.test');
    expect((await plugin.users.get(t.orgId, made.body.id as string)).userId).not.toBe(beaId);

    // A member the IdP made is taken over; the directory's later writes leave the account's record alone.
    const cid = await ssoLogin('cid@customer.test');
    const cidId = ((await cid.browser.get('/auth/user')).body as { id: string }).id;
    const linked = await adminsDirectory.createUser('cid@customer.test');
    expect((await plugin.users.get(t.orgId, linked.body.id as string)).userId).toBe(cidId);
    const before = await t.auth.users.get(cidId);
    expect(
      (
        await adminsDirectory.patchUser(
          linked.body.id as string,
          { op: 'replace', path: 'displayName', value: 'Renamed' },
          { op: 'replace', path: 'emails', value: [{ value: 'attacker@customer.test', primary: true }] },
        )
      ).status,
    ).toBe(200);
    expect(await t.auth.users.get(cidId)).toMatchObject({ name: before?.name, email: before?.email });
  });

  it('a token of a member who may not remove members cannot deactivate anyone, and its group placements give no role that member could not grant', async () => {
    await samlConnection(t, peers.idp);
    const it = await join(t, 'ivan', 'it');
    const itsDirectory = await Directory.of(t.app, it, 'acme');
    const ownersDirectory = await Directory.of(t.app, t.owner, 'acme');
    const person = await ownersDirectory.createUser('ada@customer.test');
    const adaId = (await plugin.users.get(t.orgId, person.body.id as string)).userId;
    expect((await t.owner.patch(`/auth/orgs/acme/members/${adaId}`, { roles: ['admin'] })).status).toBe(200);
    const off = await itsDirectory.patchUser(person.body.id as string, { op: 'replace', path: 'active', value: false });
    expect([off.status, off.body.detail]).toEqual([403, expect.stringContaining('may not remove members')]);
    expect(await rolesOf(adaId)).toEqual(['admin']);

    // The owner maps Leads to admin; the IT member puts a person with their own address in Leads and links it.
    expect((await t.owner.put('/auth/orgs/acme/scim/settings', { groupRoles: { leads: 'admin' } })).status).toBe(200);
    const mine = await itsDirectory.createUser('ivan@customer.test');
    expect((await itsDirectory.send('post', '/Groups', { schemas: [GROUP], displayName: 'Leads', members: [{ value: mine.body.id }] })).status).toBe(201);
    expect(await rolesOf((await plugin.users.get(t.orgId, mine.body.id as string)).userId)).toEqual(['member']);
  });

  it("single logout answers only for enabled connections, and a re-enable after a demotion is an owner's", async () => {
    const { id } = await samlConnection({ ...t, owner: admin }, peers.idp);
    const cid = await ssoLogin('cid@customer.test');
    expect(cid.status).toBe(200);
    expect((await t.owner.patch(`/auth/orgs/acme/members/${admin.id}`, { roles: ['member'] })).status).toBe(200);
    await t.auth.events.flush();
    const path = (url: string): string => `${new URL(url).pathname}${new URL(url).search}`;
    const slo = await new SsoBrowser(t).get(path(peers.idp.logoutRequest('cid@customer.test')));
    expect([slo.status, slo.body.code]).toEqual([403, 'connection_disabled']);
    expect((await cid.browser.get('/auth/user')).status).toBe(200);

    const other = await join(t, 'abe', 'admin');
    const reenabled = await other.patch(`/auth/orgs/acme/sso/connections/${id}`, { enabled: true });
    expect([reenabled.status, reenabled.body.code]).toEqual([403, 'role_required']);
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${id}`, { enabled: true })).status).toBe(200);
  });
});

/** A user `name` who accepted an invitation of acme's owner as `role`. */
async function join(t: SsoApp, name: string, role: string): Promise<Browser> {
  const browser = await new Browser(t.app).login(name);
  const since = peers.smtp.mails.length;
  expect((await t.owner.post('/auth/orgs/acme/invitations', { email: `${name}@example.com`, role })).status).toBe(201);
  expect((await browser.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
  return browser;
}

/** A third red-team pass. */
describe('what a directory names after the fact does not capture or lock out an existing member', () => {
  let t: SsoApp;
  let plugin: ScimPlugin;
  beforeEach(async () => {
    plugin = scim();
    t = await hierarchyApp(plugin);
  });
  afterEach(() => t.auth.close());

  it("an admin's directory person under an owner's name neither takes the owner's SSO logins nor locks the owner out", async () => {
    await samlConnection(t, peers.idp);
    peers.idp.user = { nameId: 'bea@customer.test', attributes: { email: ['bea@customer.test'] } };
    const bea = new SsoBrowser(t);
    expect((await bea.login(peers.idp, 'email=bea@customer.test')).status).toBe(200);
    const beaId = ((await bea.get('/auth/user')).body as { id: string }).id;
    expect((await t.owner.patch(`/auth/orgs/acme/members/${beaId}`, { roles: ['owner'] })).status).toBe(200);
    const admin = await join(t, 'adam', 'admin');
    const directory = await Directory.of(t.app, admin, 'acme');
    const made = await directory.createUser('bea@customer.test');
    expect((await plugin.users.get(t.orgId, made.body.id as string)).userId).not.toBe(beaId);
    expect((await directory.patchUser(made.body.id as string, { op: 'replace', path: 'active', value: false })).status).toBe(200);
    const again = new SsoBrowser(t);
    expect((await again.login(peers.idp, 'email=bea@customer.test')).status).toBe(200);
    expect(((await again.get('/auth/user')).body as { id: string }).id).toBe(beaId);
  });

  it('a group map set by a member who could not act on an admin leaves the admin as they are', async () => {
    const directory = await Directory.of(t.app, t.owner, 'acme');
    const made = await directory.createUser('ada@customer.test');
    const adaId = (await plugin.users.get(t.orgId, made.body.id as string)).userId;
    expect((await t.owner.patch(`/auth/orgs/acme/members/${adaId}`, { roles: ['admin'] })).status).toBe(200);
    const it = await join(t, 'ivan', 'it');
    expect((await it.put('/auth/orgs/acme/scim/settings', { groupRoles: { nobody: 'billing' } })).status).toBe(200);
    const roles = ((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === adaId)?.roles;
    expect(roles).toEqual(['admin']);
  });
});

/** acme with SSO and the SCIM `plugin`, revocations checked on every request, and a custom role `it` that holds only `org:update`. */
function hierarchyApp(plugin: ScimPlugin): Promise<SsoApp> {
  return ssoApp(
    peers.smtp,
    peers.dns,
    'memory://',
    { privateOrigins: [peers.idp.origin] },
    { plugins: [plugin], revocationCheck: 'every-request' },
    { roles: { billing: ['invoice:read'], it: ['org:update'] } },
  );
}
