import { inflateRawSync } from 'node:zlib';
import request from 'supertest';
import { apiKeys } from '../../src/api-keys';
import { scim, type ScimPlugin } from '../../src/plugins/scim';
import { eventually } from '../support/eventually';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from '../sso/sso-helpers';
import { Directory, ERROR } from './scim-helpers';

const peers = ssoPeers();

describe('a directory deprovisions a person: membership, sessions, keys and invitations end; SSO follows the directory', () => {
  let t: SsoApp;
  let plugin: ScimPlugin;
  let directory: Directory;
  beforeEach(async () => {
    plugin = scim();
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { plugins: [plugin, apiKeys()], revocationCheck: 'every-request' });
    await samlConnection(t, peers.idp);
    directory = await Directory.of(t.app, t.owner, 'acme');
  });
  afterEach(() => t.auth.close());

  const ssoLogin = async (nameId: string): Promise<SsoBrowser> => {
    peers.idp.user = { nameId, attributes: { email: [nameId] } };
    const browser = new SsoBrowser(t);
    const done = await browser.login(peers.idp, `email=${nameId}`);
    expect(done.status).toBe(200);
    return browser;
  };
  const userOf = async (browser: SsoBrowser): Promise<number> => (await browser.get('/auth/user')).status;

  /** The status of the LogoutResponse an SLO redirect carries (HTTP-Redirect binding: deflated, base64). */
  const logoutStatus = (location: string): string => {
    const xml = inflateRawSync(Buffer.from(new URL(location).searchParams.get('SAMLResponse') as string, 'base64')).toString('utf8');
    return /StatusCode[^>]*Value="([^"]+)"/.exec(xml)?.[1] as string;
  };

  it("SAML single logout finds the person the directory provisioned, ends that person's sessions and says so; a name nobody has is answered as not done", async () => {
    const made = await directory.createUser('sam@customer.test');
    const userId = (await plugin.users.get(t.orgId, made.body.id as string)).userId;
    const sam = await ssoLogin('sam@customer.test');
    const second = await ssoLogin('sam@customer.test');
    expect(await t.auth.sessions.list(userId)).toHaveLength(2);
    const path = (url: string): string => `${new URL(url).pathname}${new URL(url).search}`;

    const done = await new SsoBrowser(t).get(path(peers.idp.logoutRequest('sam@customer.test')));
    expect(done.status).toBe(302);
    expect(logoutStatus(done.headers.location as string)).toBe('urn:oasis:names:tc:SAML:2.0:status:Success');
    expect(await t.auth.sessions.list(userId)).toEqual([]);
    expect([await userOf(sam), await userOf(second)]).toEqual([401, 401]);

    const nobody = await new SsoBrowser(t).get(path(peers.idp.logoutRequest('nobody@customer.test')));
    expect(nobody.status).toBe(302);
    expect(logoutStatus(nobody.headers.location as string)).not.toBe('urn:oasis:names:tc:SAML:2.0:status:Success');
  });

  it('deactivation ends the sessions, the keys made for the organization and the invitations at once; the IdP login is refused until reactivation', async () => {
    const made = await directory.createUser('alice@customer.test');
    expect(made.status).toBe(201);
    const userId = (await plugin.users.get(t.orgId, made.body.id as string)).userId;
    expect(userId).toMatch(/^scim_[0-9a-f]{40}$/);

    const alice = await ssoLogin('alice@customer.test');
    expect((await alice.get('/auth/user')).body.id).toBe(userId);
    expect((await t.owner.patch(`/auth/orgs/acme/members/${userId}`, { roles: ['admin'] })).status).toBe(200);
    const key = await alice.jar.on(request(t.app).post('/auth/orgs/acme/api-keys')).send({ name: 'export', roles: ['member'] });
    expect(key.status).toBe(201);
    const invited = await alice.jar.on(request(t.app).post('/auth/orgs/acme/invitations')).send({ email: 'new@customer.test', role: 'member' });
    expect(invited.status).toBe(201);
    expect(
      (
        await request(t.app)
          .get('/workspace')
          .set('Authorization', `Bearer ${key.body.key as string}`)
      ).status,
    ).toBe(200);
    // The directory says nothing of roles: a PUT keeps the role the app gave.
    expect((await directory.send('put', `/Users/${made.body.id as string}`, { userName: 'alice@customer.test', displayName: 'Alice' })).status).toBe(200);
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === userId)?.roles).toEqual(['admin']);

    const off = await directory.patchUser(made.body.id as string, { op: 'Replace', path: 'active', value: 'False' });
    expect([off.status, off.body.active]).toEqual([200, false]);
    expect(await userOf(alice)).toBe(401);
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string }>).map((m) => m.userId)).not.toContain(userId);
    expect((await t.owner.get('/auth/orgs/acme/invitations')).body).toEqual([]);
    await eventually(async () =>
      expect(
        (
          await request(t.app)
            .get('/workspace')
            .set('Authorization', `Bearer ${key.body.key as string}`)
        ).status,
      ).toBe(401),
    );
    expect((await t.owner.get('/auth/orgs/acme/api-keys')).body).toEqual([]);

    peers.idp.user = { nameId: 'alice@customer.test', attributes: { email: ['alice@customer.test'] } };
    const refused = await new SsoBrowser(t).login(peers.idp, 'email=alice@customer.test');
    expect([refused.status, refused.body.code]).toEqual([403, 'member_suspended']);

    expect((await directory.patchUser(made.body.id as string, { op: 'replace', value: { active: true } })).status).toBe(200);
    const back = await ssoLogin('alice@customer.test');
    expect((await back.get('/auth/user')).body.id).toBe(userId);
    // Reactivation restores the membership, not the sessions that ended.
    expect(await userOf(alice)).toBe(401);
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as Array<{ userId: string; roles: string[] }>).find((m) => m.userId === userId)?.roles).toEqual(['member']);

    expect((await directory.send('delete', `/Users/${made.body.id as string}`)).status).toBe(204);
    expect(await userOf(back)).toBe(401);
    // Deleted from the directory, the person is a stranger again: the IdP login makes a user of the connection's own.
    const stranger = await ssoLogin('alice@customer.test');
    expect((await stranger.get('/auth/user')).body.id).not.toBe(userId);
  });

  it('takes over a member by an address in a verified domain, never by another address', async () => {
    const bob = await ssoLogin('bob@customer.test');
    const bobId = (await bob.get('/auth/user')).body.id as string;
    const linked = await directory.createUser('bob@customer.test');
    expect((await plugin.users.get(t.orgId, linked.body.id as string)).userId).toBe(bobId);
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as unknown[]).length).toBe(2);
    // The same address in a domain nobody verified makes a new user.
    const other = await directory.createUser('bob@elsewhere.test');
    expect((await plugin.users.get(t.orgId, other.body.id as string)).userId).not.toBe(bobId);
    // A second SCIM user for bob's address is refused (one SCIM user per person).
    const twice = await directory.createUser('robert@customer.test', { emails: [{ value: 'bob@customer.test', primary: true }] });
    expect(twice.status).toBe(201);
    expect((await plugin.users.get(t.orgId, twice.body.id as string)).userId).not.toBe(bobId);
  });

  it('answers malformed bodies, other methods and hostile input in SCIM error shape, changing nothing', async () => {
    const made = await directory.createUser('carol@customer.test');
    const id = made.body.id as string;
    const before = (await directory.send('get', `/Users/${id}`)).body;
    const cases: Array<[string, Promise<request.Response>, number, string | undefined]> = [
      ['malformed JSON', directory.send('post', '/Users', '{"userName": '), 400, 'invalidSyntax'],
      ['an array body', directory.send('post', '/Users', [1, 2]), 400, 'invalidSyntax'],
      ['a huge body', directory.send('post', '/Users', { userName: 'x'.repeat(300 * 1024) }), 413, undefined],
      ['no userName', directory.send('post', '/Users', { displayName: 'x' }), 400, 'invalidValue'],
      ['a bad e-mail', directory.send('put', `/Users/${id}`, { userName: 'carol@customer.test', emails: [{ value: 'nope' }] }), 400, 'invalidValue'],
      ['an unknown op', directory.patchUser(id, { op: 'move', path: 'userName', value: 'x' }), 400, 'invalidSyntax'],
      ['a bad path', directory.patchUser(id, { op: 'replace', path: 'emails[type eq', value: 'x' }), 400, 'invalidPath'],
      ['no target', directory.patchUser(id, { op: 'replace', path: 'emails[type co "home"]', value: { value: 'x@y.z' } }), 400, 'noTarget'],
      ['a read-only path', directory.patchUser(id, { op: 'replace', path: 'id', value: 'mine' }), 400, 'mutability'],
      ['groups set on a user', directory.patchUser(id, { op: 'add', path: 'groups', value: [{ value: 'x' }] }), 400, 'mutability'],
      ['no operations', directory.send('patch', `/Users/${id}`, { Operations: [] }), 400, 'invalidSyntax'],
      ['a deep filter', directory.filterUsers(`${'('.repeat(40)}userName eq "x"${')'.repeat(40)}`), 400, 'invalidFilter'],
      ['a bad count', directory.send('get', '/Users?count=lots'), 400, 'invalidValue'],
      ['another method', directory.send('post', `/Users/${id}`, { userName: 'x' }), 405, undefined],
      ['another method on a list', directory.send('put', '/Groups', { displayName: 'x' }), 405, undefined],
      ['no such endpoint', directory.send('get', '/Nothing'), 404, undefined],
      ['no such endpoint with an id', directory.send('delete', '/ServiceProviderConfig/x'), 404, undefined],
    ];
    for (const [what, answer, status, scimType] of cases) {
      const res = await answer;
      expect([what, res.status, res.headers['content-type']]).toEqual([what, status, expect.stringMatching(/^application\/scim\+json/)]);
      expect([what, res.body]).toEqual([what, { schemas: [ERROR], status: String(status), detail: expect.any(String), ...(scimType ? { scimType } : {}) }]);
    }
    expect((await directory.send('patch', '/Users')).headers.allow).toBe('GET, POST');
    expect((await directory.send('get', '/Nothing')).headers.allow).toBeUndefined();
    expect((await directory.send('get', `/Users/${id}`)).body).toEqual(before);
    expect((await directory.send('get', '/Users')).body.totalResults).toBe(1);
  });
});
