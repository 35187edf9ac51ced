import request from 'supertest';
import { admin } from '../../src/admin';
import { scim } from '../../src/plugins/scim';
import { Browser, orgApp, type OrgApp } from '../organizations/org-helpers';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Directory, ERROR, USER } from '../scim/scim-helpers';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** What `Object.prototype` holds besides the language's own names: it must stay nothing. */
const polluted = (): string[] => Object.getOwnPropertyNames(Object.prototype).filter((name) => !NATIVE.has(name));
const NATIVE = new Set(Object.getOwnPropertyNames(Object.prototype));

let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());

describe('a name a client chooses never reaches an object prototype (docs/security.md, rule 3)', () => {
  let t: OrgApp;
  let owner: Browser;
  let directory: Directory;
  let userId: string;
  let stored: unknown;
  beforeAll(async () => {
    t = orgApp(smtp, 'memory://', { plugins: [scim(), admin()] });
    // Any signed-in user may make an organization and a SCIM token: the attacker needs nothing more.
    owner = await new Browser(t.app).login('mallory');
    expect((await owner.post('/auth/orgs', { name: 'Mine', slug: 'mine' })).status).toBe(201);
    directory = await Directory.of(t.app, owner, 'mine');
    const made = await directory.createUser('bob@mine.test');
    expect(made.status).toBe(201);
    userId = made.body.id as string;
    stored = (await directory.send('get', `/Users/${userId}`)).body;
  });
  afterAll(() => t.auth.close());
  afterEach(() => {
    expect(polluted()).toEqual([]);
  });

  it.each([
    ['__proto__.attrs', { admin: true }],
    ['name.__proto__.x', 'y'],
    ['constructor.prototype.admin', true],
    ['Name.__PROTO__.admin', true],
    ['emails[type eq "work"].__proto__', { admin: true }],
    [`${USER}:__proto__.admin`, true],
  ])('PATCH /Users with the path %s answers 400 invalidPath and changes nothing', async (path, value) => {
    for (const op of ['add', 'replace']) {
      const res = await directory.patchUser(userId, { op, path, value });
      expect([res.status, res.body.schemas, res.body.scimType]).toEqual([400, [ERROR], 'invalidPath']);
    }
    expect((await directory.send('get', `/Users/${userId}`)).body).toEqual(stored);
  });

  it('a PATCH without a path, a POST and a PUT whose body holds __proto__ answer 400 in the SCIM error shape', async () => {
    const raw = (body: string, method: 'patch' | 'post' | 'put', path: string): Promise<request.Response> => directory.send(method, path, body);
    const patched = await raw(`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","value":{"__proto__":{"admin":true}}}]}`, 'patch', `/Users/${userId}`);
    const posted = await raw(`{"schemas":["${USER}"],"userName":"eve@mine.test","name":{"constructor":{"prototype":{"admin":true}}}}`, 'post', '/Users');
    const put = await raw(`{"schemas":["${USER}"],"userName":"bob@mine.test","__proto__":{"attrs":{"admin":true}}}`, 'put', `/Users/${userId}`);
    for (const res of [patched, posted, put]) {
      expect([res.status, res.body.schemas, res.body.detail]).toEqual([400, [ERROR], expect.stringMatching(/property name/)]);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    }
    expect((await directory.filterUsers('userName eq "eve@mine.test"')).body.totalResults).toBe(0);
    expect((await directory.send('get', `/Users/${userId}`)).body).toEqual(stored);
  });

  it('a group PATCH and a filter naming __proto__ or constructor answer 400', async () => {
    const group = await directory.send('post', '/Groups', { schemas: [GROUP], displayName: 'Staff', members: [{ value: userId }] });
    expect(group.status).toBe(201);
    const res = await directory.send('patch', `/Groups/${group.body.id as string}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'add', path: '__proto__.attrs', value: { admin: true } }],
    });
    expect([res.status, res.body.scimType]).toEqual([400, 'invalidPath']);
    for (const filter of ['__proto__ pr', 'name.constructor eq "x"', 'emails[__proto__ pr]', 'emails[type eq "work"].constructor pr']) {
      const found = await directory.filterUsers(filter);
      expect([filter, found.status, found.body.scimType]).toEqual([filter, 400, 'invalidFilter']);
    }
  });

  it('group names that are prototype names map to no role, and a role map cannot name them', async () => {
    expect((await owner.put('/auth/orgs/mine/scim/settings', { groupRoles: { constructor: 'admin' } })).status).toBe(400);
    expect((await owner.put('/auth/orgs/mine/scim/settings', { groupRoles: { engineers: 'admin' } })).status).toBe(200);
    const carol = await directory.createUser('carol@mine.test');
    const group = await directory.send('post', '/Groups', { schemas: [GROUP], displayName: 'constructor', members: [{ value: carol.body.id }] });
    expect(group.status).toBe(201);
    const members = (await owner.get('/auth/orgs/mine/members')).body as Array<{ email?: string; roles: string[] }>;
    expect(members.filter((m) => m.roles.some((r) => typeof r !== 'string'))).toEqual([]);
  });

  it('the auth router refuses a JSON body holding __proto__ with 400 bad_request, and nothing is made', async () => {
    const res = await owner.jar.on(request(t.app).post('/auth/orgs')).set('Content-Type', 'application/json').send('{"name":"Evil","slug":"evil","__proto__":{"admin":true}}');
    expect([res.status, res.body]).toEqual([400, { error: 'the body may not use the property name __proto__', code: 'bad_request' }]);
    expect((await owner.get('/auth/orgs/evil')).status).toBe(404);
  });

  it('after every attempt, a stranger is no app admin', async () => {
    const stranger = await new Browser(t.app).login('stranger');
    expect((await stranger.get('/admin')).status).toBe(403);
    expect((await stranger.get('/auth/admin/users')).status).toBe(403);
    expect(({} as { attrs?: unknown }).attrs).toBeUndefined();
  });
});
