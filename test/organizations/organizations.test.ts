import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';
import { Browser, orgApp, tokenOf, type OrgApp } from './org-helpers';

let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());

/** Invites `email` as `role` through `by`, and returns the token of the mail that arrived. */
async function invite(by: Browser, org: string, email: string, role = 'member'): Promise<string> {
  const since = smtp.mails.length;
  const res = await by.post(`/auth/orgs/${org}/invitations`, { email, role });
  expect(res.status).toBe(201);
  const mail = await smtp.nextMail(since);
  expect(mail.to).toEqual([email.toLowerCase()]);
  return tokenOf(mail.body);
}

function orgFlow(name: string, describeFn: jest.Describe, storeUri: () => Promise<{ uri: string; cleanup(): Promise<void> }>): void {
  describeFn(`organizations over HTTP (${name} store)`, () => {
    let t: OrgApp;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      const store = await storeUri();
      cleanup = store.cleanup;
      t = orgApp(smtp, store.uri);
    });
    afterEach(async () => {
      await t.auth.close();
      await cleanup();
    });

    it('creates, invites by mail, accepts once, activates, checks roles and permissions on every request', async () => {
      const alice = await new Browser(t.app).login('alice');
      const bob = await new Browser(t.app).login('bob');

      const created = await alice.post('/auth/orgs', { name: 'Acme Corp' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Acme Corp', slug: 'acme-corp', role: 'owner', roles: ['owner'], permissions: ['*'] });
      const orgId = (created.body as { id: string }).id;
      expect(orgId).toMatch(/^org_/);
      expect((await alice.post('/auth/orgs', { name: 'Other', slug: 'acme-corp' })).body).toMatchObject({ code: 'slug_taken' });

      // Not a member: 404 by id and by slug, as for an organization that does not exist.
      for (const ref of [orgId, 'acme-corp', 'no-such-org']) expect((await bob.get(`/auth/orgs/${ref}`)).status).toBe(404);
      expect((await bob.post(`/auth/orgs/${orgId}/activate`)).status).toBe(404);

      const token = await invite(alice, 'acme-corp', 'Bob@Example.COM', 'billing');
      const pending = (await alice.get(`/auth/orgs/${orgId}/invitations`)).body as Array<Record<string, unknown>>;
      expect(pending).toEqual([expect.objectContaining({ email: 'bob@example.com', roles: ['billing'], inviter: alice.id })]);
      expect(JSON.stringify(pending)).not.toContain(token);

      const accepted = await bob.post('/auth/orgs/invitations/accept', { token });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toEqual({ org: { id: orgId, name: 'Acme Corp', slug: 'acme-corp' }, role: 'billing', roles: ['billing'] });
      expect((await bob.post('/auth/orgs/invitations/accept', { token })).body).toMatchObject({ code: 'invitation_invalid' });
      expect((await alice.get(`/auth/orgs/${orgId}/invitations`)).body).toEqual([]);

      // Acting needs an active organization.
      // The refusal names the route to call, with the auth router's mount path (issue 41, item 9).
      expect((await bob.get('/workspace')).body).toEqual({ code: 'org_required', error: 'no active organization: POST /auth/orgs/<org>/activate first' });
      const activated = await bob.post('/auth/orgs/acme-corp/activate');
      expect(activated.status).toBe(200);
      expect((await bob.get('/workspace')).body).toEqual({ org: { id: orgId, slug: 'acme-corp', name: 'Acme Corp' }, roles: ['billing'], teams: [], invoices: true });
      expect((await bob.get('/invoices')).status).toBe(200);
      expect((await bob.get('/workspace/settings')).body).toMatchObject({ code: 'role_required' });
      expect((await bob.get('/auth/orgs')).body).toEqual([expect.objectContaining({ id: orgId, role: 'billing', active: true })]);

      // A role change holds on the next request, through the same token.
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${bob.id}`, { roles: ['admin', 'support'] })).status).toBe(200);
      expect((await bob.get('/workspace/settings')).status).toBe(200);
      expect((await bob.get('/invoices')).body).toMatchObject({ code: 'permission_required' });

      // A removal too.
      expect((await alice.delete(`/auth/orgs/${orgId}/members/${bob.id}`)).status).toBe(200);
      expect((await bob.get('/workspace')).body).toMatchObject({ code: 'not_a_member' });
      expect((await bob.get(`/auth/orgs/${orgId}`)).status).toBe(404);
      expect((await bob.get('/auth/orgs')).body).toEqual([]);
    });

    it('keeps the last owner, and nobody grants above their own role', async () => {
      const alice = await new Browser(t.app).login('alice');
      const carol = await new Browser(t.app).login('carol');
      const dave = await new Browser(t.app).login('dave');
      const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Keep', slug: 'keep' })).body as { id: string };
      expect((await carol.post('/auth/orgs/invitations/accept', { token: await invite(alice, orgId, 'carol@example.com', 'admin') })).status).toBe(200);
      expect((await dave.post('/auth/orgs/invitations/accept', { token: await invite(carol, orgId, 'dave@example.com') })).status).toBe(200);

      // The only owner cannot leave, be removed or be demoted.
      expect((await alice.delete(`/auth/orgs/${orgId}/members/${alice.id}`)).body).toMatchObject({ code: 'last_owner' });
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${alice.id}`, { role: 'admin' })).body).toMatchObject({ code: 'last_owner' });
      // An admin cannot touch the owner, make an owner, or invite one.
      expect((await carol.delete(`/auth/orgs/${orgId}/members/${alice.id}`)).body).toMatchObject({ code: 'role_required' });
      expect((await carol.patch(`/auth/orgs/${orgId}/members/${dave.id}`, { role: 'owner' })).body).toMatchObject({ code: 'role_required' });
      expect((await carol.post(`/auth/orgs/${orgId}/invitations`, { email: 'x@example.com', role: 'owner' })).body).toMatchObject({ code: 'role_required' });
      expect((await carol.delete(`/auth/orgs/${orgId}`)).body).toMatchObject({ code: 'permission_required' });
      // A member manages nothing; unknown roles are named.
      expect((await dave.patch(`/auth/orgs/${orgId}/members/${dave.id}`, { role: 'admin' })).body).toMatchObject({ code: 'permission_required' });
      expect((await dave.post(`/auth/orgs/${orgId}/invitations`, { email: 'y@example.com' })).body).toMatchObject({ code: 'permission_required' });
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${dave.id}`, { role: 'emperor' })).status).toBe(400);

      // Two owners: one may step down; then the other is the last again.
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${carol.id}`, { roles: ['owner'] })).status).toBe(200);
      expect((await alice.delete(`/auth/orgs/${orgId}/members/${alice.id}`)).body).toEqual({ status: 'left' });
      expect((await carol.patch(`/auth/orgs/${orgId}/members/${carol.id}`, { role: 'member' })).body).toMatchObject({ code: 'last_owner' });
      const members = (await dave.get(`/auth/orgs/${orgId}/members`)).body as Array<{ userId: string; roles: string[]; name: string }>;
      expect(members.map((m) => [m.name, m.roles])).toEqual([
        ['carol', ['owner']],
        ['dave', ['member']],
      ]);
    });

    it('teams: created, assigned, shown to the member, removed with the team', async () => {
      const alice = await new Browser(t.app).login('alice');
      const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Teams' })).body as { id: string };
      const team = (await alice.post(`/auth/orgs/${orgId}/teams`, { name: 'Backend' })).body as { id: string; name: string };
      expect(team).toEqual({ id: expect.stringMatching(/^team_/), name: 'Backend' });
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${alice.id}`, { teams: [team.id] })).body).toMatchObject({ teams: [team.id] });
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${alice.id}`, { teams: ['team_other'] })).status).toBe(400);
      await alice.post(`/auth/orgs/${orgId}/activate`);
      expect((await alice.get('/workspace')).body).toMatchObject({ teams: [team.id] });
      expect((await alice.patch(`/auth/orgs/${orgId}/teams/${team.id}`, { name: 'Platform' })).status).toBe(200);
      expect((await alice.get(`/auth/orgs/${orgId}/teams`)).body).toEqual([{ id: team.id, name: 'Platform' }]);
      expect((await alice.delete(`/auth/orgs/${orgId}/teams/${team.id}`)).status).toBe(200);
      expect((await alice.get('/workspace')).body).toMatchObject({ teams: [] });
    });
  });
}

orgFlow('memory', describe, async () => ({ uri: 'memory://', cleanup: async () => undefined }));
orgFlow('level', describe, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-org-http-'));
  return { uri: `level://${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
const postgres = sharedServer(startPostgres);
orgFlow('postgres', describePostgres, async () => {
  const server = await postgres();
  const schema = `oh_${randomBytes(6).toString('hex')}`;
  return { uri: `${server.url}?schema=${schema}`, cleanup: () => dropSchema(server.url, schema) };
});

describe('organizations: invitations and deletion', () => {
  let t: OrgApp;
  beforeEach(() => {
    t = orgApp(smtp, 'memory://', {}, { invitationTtl: 60_000 });
  });
  afterEach(() => t.auth.close());

  it('an invitation is one-shot even when raced, expires, and answers the same for any address', async () => {
    const alice = await new Browser(t.app).login('alice');
    const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Race' })).body as { id: string };
    const token = await invite(alice, orgId, 'many@example.com');
    const racers = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5'].map((n) => new Browser(t.app).login(n)));
    const answers = await Promise.all(racers.map((b) => b.post('/auth/orgs/invitations/accept', { token })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400]);
    expect(((await alice.get(`/auth/orgs/${orgId}/members`)).body as unknown[]).length).toBe(2);

    // Inviting again (a member, a pending address, a fresh one) answers in the same shape; the pending one is replaced.
    const shape = (body: Record<string, unknown>): string[] => Object.keys(body).sort();
    const first = (await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'pending@example.com' })).body as Record<string, unknown>;
    const again = (await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'pending@example.com' })).body as Record<string, unknown>;
    const fresh = (await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'new@example.com' })).body as Record<string, unknown>;
    const member = (await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'alice@example.com' })).body as Record<string, unknown>;
    expect(new Set([first, again, fresh, member].map((b) => shape(b).join()))).toEqual(new Set([shape(fresh).join()]));
    const listed = ((await alice.get(`/auth/orgs/${orgId}/invitations`)).body as Array<{ email: string }>).map((i) => i.email).sort();
    expect(listed).toEqual(['alice@example.com', 'new@example.com', 'pending@example.com']);

    // Cancelled: refused. Expired: refused.
    const cancelled = await invite(alice, orgId, 'cancel@example.com');
    const id = ((await alice.get(`/auth/orgs/${orgId}/invitations`)).body as Array<{ id: string; email: string }>).find((i) => i.email === 'cancel@example.com')?.id;
    expect((await alice.delete(`/auth/orgs/${orgId}/invitations/${id}`)).status).toBe(200);
    expect((await racers[1]!.post('/auth/orgs/invitations/accept', { token: cancelled })).body).toMatchObject({ code: 'invitation_invalid' });
    const late = await invite(alice, orgId, 'late@example.com');
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    try {
      expect((await racers[2]!.post('/auth/orgs/invitations/accept', { token: late })).body).toMatchObject({ code: 'invitation_invalid' });
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('an invitation id of another organization cannot be cancelled, nor a member of another organization changed', async () => {
    const alice = await new Browser(t.app).login('alice');
    const eve = await new Browser(t.app).login('eve');
    const { id: mine } = (await alice.post('/auth/orgs', { name: 'Mine' })).body as { id: string };
    const { id: evil } = (await eve.post('/auth/orgs', { name: 'Evil' })).body as { id: string };
    await invite(alice, mine, 'target@example.com');
    const [inv] = (await alice.get(`/auth/orgs/${mine}/invitations`)).body as Array<{ id: string }>;
    expect((await eve.delete(`/auth/orgs/${evil}/invitations/${inv!.id}`)).status).toBe(404);
    expect((await eve.patch(`/auth/orgs/${evil}/members/${alice.id}`, { role: 'member' })).status).toBe(404);
    expect((await eve.delete(`/auth/orgs/${evil}/members/${alice.id}`)).status).toBe(404);
    expect((await alice.get(`/auth/orgs/${mine}/invitations`)).body).toHaveLength(1);
    expect((await alice.get(`/auth/orgs/${mine}/members`)).body).toHaveLength(1);
  });

  it('deleting an organization needs a fresh login, and leaves no memberships or invitations', async () => {
    const alice = await new Browser(t.app).login('alice');
    const bob = await new Browser(t.app).login('bob');
    const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Doomed' })).body as { id: string };
    await bob.post('/auth/orgs/invitations/accept', { token: await invite(alice, orgId, 'bob@example.com') });
    const token = await invite(alice, orgId, 'carol@example.com');
    await alice.post(`/auth/orgs/${orgId}/activate`);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60_000);
    try {
      // A session past stepUpMaxAge (a stolen one, say) cannot delete, nor leave behind someone with powers.
      expect((await alice.delete(`/auth/orgs/${orgId}`)).body).toMatchObject({ code: 'step_up_required' });
      expect((await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'crony@example.com', role: 'admin' })).body).toMatchObject({ code: 'step_up_required' });
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${bob.id}`, { role: 'admin' })).body).toMatchObject({ code: 'step_up_required' });
      expect((await alice.patch(`/auth/orgs/${orgId}/members/${bob.id}`, { role: 'billing' })).status).toBe(200);
      expect((await alice.get(`/auth/orgs/${orgId}/members`)).body).toEqual(expect.arrayContaining([expect.objectContaining({ userId: bob.id, roles: ['billing'] })]));
    } finally {
      jest.restoreAllMocks();
    }
    expect((await alice.delete(`/auth/orgs/${orgId}`)).status).toBe(200);
    expect((await alice.get('/workspace')).body).toMatchObject({ code: 'org_required' });
    expect((await bob.get('/auth/orgs')).body).toEqual([]);
    const carol = await new Browser(t.app).login('carol');
    expect((await carol.post('/auth/orgs/invitations/accept', { token })).body).toMatchObject({ code: 'invitation_invalid' });
    expect(await t.plugin.service.mine(bob.id)).toEqual([]);
  });

  it('a deleted user leaves every organization; one left without an owner gets its longest-standing admin as owner', async () => {
    const alice = await new Browser(t.app).login('alice');
    const bob = await new Browser(t.app).login('bob');
    const { id: shared } = (await alice.post('/auth/orgs', { name: 'Shared' })).body as { id: string };
    const { id: solo } = (await alice.post('/auth/orgs', { name: 'Solo' })).body as { id: string };
    await bob.post('/auth/orgs/invitations/accept', { token: await invite(alice, shared, 'bob@example.com', 'admin') });
    await t.plugin.service.userDeleted(alice.id);
    expect((await bob.get(`/auth/orgs/${shared}/members`)).body).toEqual([expect.objectContaining({ userId: bob.id, roles: ['owner', 'admin'] })]);
    expect(await t.plugin.service.mine(alice.id)).toEqual([]);
    await expect(t.plugin.service.find(solo, alice.id)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses bad input with 400 and a code, and every route needs a login with XSRF', async () => {
    const alice = await new Browser(t.app).login('alice');
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'ok', slug: 'Bad Slug' }, { name: 'ok', slug: 'invitations' }, { name: ['x'] }, { name: 'a\u0000b' }]) {
      const res = await alice.post('/auth/orgs', body);
      expect([res.status, res.body.code]).toEqual([400, 'bad_request']);
    }
    const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Inputs' })).body as { id: string };
    for (const body of [{ email: 'not-an-address' }, { email: 'a@example.com', role: 7 }, { email: 'a@example.com', roles: [] }, { email: 'a@example.com', role: 'emperor' }]) {
      expect((await alice.post(`/auth/orgs/${orgId}/invitations`, body)).status).toBe(400);
    }
    for (const token of [undefined, '', 'short', 'x'.repeat(500), { $ne: null }]) expect((await alice.post('/auth/orgs/invitations/accept', { token })).status).toBe(400);
    await request(t.app).get('/auth/orgs').expect(401);
    await request(t.app)
      .post('/auth/orgs')
      .set('Cookie', `JWT=${alice.jar.get('JWT')}`)
      .send({ name: 'no xsrf' })
      .expect(401);
    await request(t.app)
      .post('/auth/orgs')
      .set('Cookie', `JWT=${alice.jar.get('JWT')}`)
      .set('X-XSRF-TOKEN', alice.jar.get('XSRF-TOKEN') ?? '')
      .set('Origin', 'https://evil.example')
      .send({ name: 'x' })
      .expect(403);
    expect((await alice.get('/auth/orgs')).body).toHaveLength(1);
    expect((await request(t.app).put('/auth/orgs')).status).toBe(405);
  });

  it('m.org() and m.can() refuse without a login, and name unknown roles at start-up', async () => {
    await request(t.app).get('/workspace').expect(401);
    expect(() => t.auth.middleware().org('emperor')).toThrow(/no role "emperor"/);
    expect(() => t.auth.middleware().can()).toThrow(/at least one permission/);
  });
});
