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
