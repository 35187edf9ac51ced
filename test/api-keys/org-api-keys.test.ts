import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { mustGetUser, type AuthOptions } from '../../src';
import { apiKeyOf, apiKeys, orgKeyHolder, type ApiKeysPlugin } from '../../src/api-keys';
import { Browser, orgApp, tokenOf, type OrgApp } from '../organizations/org-helpers';
import { describeOnEveryCredentialStore } from '../support/credential-stores';
import { eventually } from '../support/eventually';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());

/** The organizations test app with API keys (three per organization) and `/api/me`, which shows whom a key acts as. */
function keyOrgApp(options: Partial<AuthOptions> = {}, orgStore = 'memory://'): KeyOrgApp {
  const keys = apiKeys({ maxKeysPerOrg: 3 });
  const t = orgApp(smtp, orgStore, { ...options, plugins: [keys] });
  t.app.get('/api/me', t.auth.middleware().auth, (req, res) => res.json({ user: mustGetUser(req), key: apiKeyOf(req) ?? null }));
  return { ...t, keys };
}
type KeyOrgApp = OrgApp & { keys: ApiKeysPlugin };

const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];

/** `owner` makes organization Acme and brings `others` in with their roles (by mail, as members join). */
async function acme(owner: Browser, others: Array<[Browser, string]>): Promise<string> {
  const orgId = ((await owner.post('/auth/orgs', { name: 'Acme' })).body as { id: string }).id;
  for (const [member, role] of others) {
    const since = smtp.mails.length;
    const email = `${member.id.slice(-8)}@acme.example`;
    expect((await owner.post(`/auth/orgs/${orgId}/invitations`, { email, role })).status).toBe(201);
    const token = tokenOf((await smtp.nextMail(since)).body);
    expect((await member.post('/auth/orgs/invitations/accept', { token })).status).toBe(200);
  }
  return orgId;
}

/** Logged-in browsers of `names`, in order. */
const browsers = <N extends string[]>(t: OrgApp, ...names: N): Promise<{ [K in keyof N]: Browser }> =>
  Promise.all(names.map((n) => new Browser(t.app).login(n))) as Promise<{ [K in keyof N]: Browser }>;

const get = (t: OrgApp, path: string, key: string): request.Test =>
  request(t.app)
    .get(path)
    .set(...bearer(key));

describeOnEveryCredentialStore("an organization's API keys", (store) => {
  let t: KeyOrgApp;
  beforeEach(() => {
    t = keyOrgApp({ credentialStore: store().uri });
  });
  afterEach(() => t.auth.close());

  it('made by its admins with roles no higher than theirs; the key acts as the organization in m.org() and m.can(); any admin deletes it', async () => {
    const [alice, carol, bob, mallory] = await browsers(t, 'alice', 'carol', 'bob', 'mallory');
    const orgId = await acme(alice, [
      [carol, 'admin'],
      [bob, 'member'],
    ]);
    const base = `/auth/orgs/${orgId}/api-keys`;

    // Members without api-key:manage are refused; outsiders do not learn the organization exists.
    for (const [who, status] of [
      [bob, 403],
      [mallory, 404],
    ] as const) {
      expect((await who.get(base)).status).toBe(status);
      expect((await who.post(base, { name: 'x' })).status).toBe(status);
    }
    for (const roles of [['owner'], ['no-such-role'], 'billing', []]) expect((await alice.post(base, { name: 'x', roles })).status).toBe(400);
    expect((await alice.get(base)).body).toEqual([]);

    const made = await alice.post(base, { name: 'billing export', roles: ['billing'], scopes: ['invoices:read'] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'billing export', roles: ['billing'], scopes: ['invoices:read'], createdBy: alice.id });
    const key = made.body.key as string;
    expect((await alice.get(base)).body).toEqual([expect.objectContaining({ id: made.body.id, roles: ['billing'], createdBy: alice.id })]);
    expect(JSON.stringify((await alice.get(base)).body)).not.toContain(key);
    // Not among alice's own keys, and not reachable through them.
    expect((await alice.get('/auth/api-keys')).body).toEqual([]);
    expect((await alice.delete(`/auth/api-keys/${made.body.id as string}`)).status).toBe(404);

    const me = (await get(t, '/api/me', key).expect(200)).body;
    expect(me).toEqual({ user: { id: orgKeyHolder(orgId), name: 'billing export', picture: '' }, key: { id: made.body.id, scopes: ['invoices:read'], org: { id: orgId, roles: ['billing'] } } });
    const workspace = (await get(t, '/workspace', key).expect(200)).body;
    expect(workspace).toEqual({ org: { id: orgId, slug: 'acme', name: 'Acme' }, roles: ['billing'], teams: [], invoices: true });
    await get(t, '/invoices', key).expect(200);
    expect((await get(t, '/workspace/settings', key)).body).toMatchObject({ code: 'role_required' });

    // An admin may give admin, not owner; a key of the organization never reaches the organization routes.
    expect((await carol.post(base, { name: 'ops', roles: ['admin'] })).status).toBe(201);
    for (const path of [`/auth/orgs/${orgId}`, `/auth/orgs/${orgId}/members`, base]) expect((await get(t, path, key)).status).toBe(401);
    // A user's own key has no organization: m.org() refuses it.
    const own = (await alice.post('/auth/api-keys', { name: 'mine' })).body.key as string;
    expect((await get(t, '/workspace', own)).body).toEqual({ code: 'org_required', error: 'a personal API key never acts in an organization: use an API key of the organization' });

    expect((await carol.patch(`${base}/${made.body.id as string}`, { name: 'exports' })).body).toMatchObject({ name: 'exports', roles: ['billing'] });
    expect((await get(t, '/api/me', key).expect(200)).body.user.name).toBe('exports');
    expect((await carol.delete(`${base}/${made.body.id as string}`)).status).toBe(200);
    expect((await get(t, '/api/me', key)).body).toMatchObject({ code: 'token_invalid' });
    expect((await get(t, '/workspace', key)).status).toBe(401);
  });

  it("no admin of one organization reaches another's keys, whatever the path, body or query says; a fresh login to make one; a cap per organization", async () => {
    const [alice, mallory] = await browsers(t, 'alice', 'mallory');
    const acmeId = await acme(alice, []);
    const evilId = ((await mallory.post('/auth/orgs', { name: 'Evil' })).body as { id: string }).id;
    const made = (await alice.post(`/auth/orgs/${acmeId}/api-keys`, { name: 'acme' })).body as { id: string; key: string };

    expect((await mallory.get(`/auth/orgs/${acmeId}/api-keys`)).status).toBe(404);
    expect((await mallory.delete(`/auth/orgs/${evilId}/api-keys/${made.id}`)).status).toBe(404);
    expect((await mallory.patch(`/auth/orgs/${evilId}/api-keys/${made.id}?org=${acmeId}`, { name: 'pwned', org: acmeId })).status).toBe(404);
    const forged = await mallory.post(`/auth/orgs/${evilId}/api-keys?org=${acmeId}`, { name: 'x', org: acmeId, orgId: acmeId, userId: alice.id, createdBy: alice.id });
    expect(forged.status).toBe(201);
    expect((await get(t, '/workspace', forged.body.key as string).expect(200)).body.org.id).toBe(evilId);
    expect((await alice.get(`/auth/orgs/${acmeId}/api-keys`)).body).toEqual([expect.objectContaining({ id: made.id, name: 'acme' })]);
    expect((await get(t, '/workspace', made.key).expect(200)).body.org.id).toBe(acmeId);

    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60_000);
    try {
      expect((await alice.post(`/auth/orgs/${acmeId}/api-keys`, { name: 'late' })).body).toMatchObject({ code: 'step_up_required' });
    } finally {
      jest.restoreAllMocks();
    }
    await alice.post(`/auth/orgs/${acmeId}/api-keys`, { name: 'two' });
    await alice.post(`/auth/orgs/${acmeId}/api-keys`, { name: 'three' });
    expect((await alice.post(`/auth/orgs/${acmeId}/api-keys`, { name: 'four' })).body).toMatchObject({ code: 'limit_reached' });
  });

  it('deleting the organization stops its keys at once and removes them', async () => {
    const alice = await new Browser(t.app).login('alice');
    const orgId = await acme(alice, []);
    const made = (await alice.post(`/auth/orgs/${orgId}/api-keys`, { name: 'doomed' })).body as { id: string; key: string };
    await get(t, '/api/me', made.key).expect(200);
    await get(t, '/api/me', made.key).expect(200);
    expect((await alice.delete(`/auth/orgs/${orgId}`)).status).toBe(200);
    expect((await get(t, '/api/me', made.key)).body).toMatchObject({ code: 'token_invalid' });
    await t.auth.events.flush();
    await eventually(async () => expect(await t.auth.credentials.list(orgKeyHolder(orgId))).toEqual([]));

    // A key whose organization has no record (its removal was lost) is refused all the same.
    const stray = await t.keys.service.create(
      { id: alice.id, name: 'alice', picture: '' },
      { name: 'stray', scopes: [], expiresIn: undefined },
      { org: orgId, createdBy: alice.id, roles: ['member'] },
    );
    expect((await get(t, '/api/me', stray.key)).body).toMatchObject({ code: 'token_invalid', error: 'the organization of this API key is gone' });
  });
});

const postgres = sharedServer(startPostgres);
describePostgres("an organization's API keys on two instances sharing PostgreSQL", () => {
  it('a key deleted on A, or its organization deleted on A, is refused on B at once, though B had it in memory', async () => {
    const server = await postgres();
    const schema = `ok_${randomBytes(6).toString('hex')}`;
    const uri = `${server.url}?schema=${schema}`;
    const options = { credentialStore: uri, userStore: uri, stateStore: uri };
    const [a, b] = [keyOrgApp(options, uri), keyOrgApp(options, uri)];
    try {
      const alice = await new Browser(a.app).login('alice');
      const orgId = await acme(alice, []);
      const [first, second] = [
        (await alice.post(`/auth/orgs/${orgId}/api-keys`, { name: 'one' })).body as { id: string; key: string },
        (await alice.post(`/auth/orgs/${orgId}/api-keys`, { name: 'two' })).body as { id: string; key: string },
      ];
      for (const k of [first, second]) for (let i = 0; i < 2; i++) await get(b, '/workspace', k.key).expect(200);

      expect((await alice.delete(`/auth/orgs/${orgId}/api-keys/${first.id}`)).status).toBe(200);
      await eventually(async () => expect((await get(b, '/workspace', first.key)).status).toBe(401), 3000, 10);
      await get(b, '/workspace', second.key).expect(200);

      expect((await alice.delete(`/auth/orgs/${orgId}`)).status).toBe(200);
      await eventually(async () => expect((await get(b, '/api/me', second.key)).status).toBe(401), 3000, 10);
      expect((await get(b, '/workspace', second.key)).status).toBe(401);
    } finally {
      await Promise.all([a.auth.close(), b.auth.close()]);
      await dropSchema(server.url, schema);
    }
  });
});
