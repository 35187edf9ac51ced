import { scim } from '../../src/plugins/scim';
import type { SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, type OrgApp } from '../organizations/org-helpers';
import type { StoreMaker } from '../support/every-store';
import { Directory, ENTERPRISE, ERROR, USER } from './scim-helpers';

/** The suite on one store; `peers.smtp` is read inside its tests. */
export function usersSuite(name: string, describeFn: jest.Describe, store: StoreMaker, peers: { smtp: SmtpPeer }): void {
  describeFn(`SCIM users (${name} store)`, () => {
    let t: OrgApp;
    let cleanup: () => Promise<void>;
    let owner: Browser;
    let directory: Directory;
    let slug: string;
    let orgId: string;
    let made = 0;
    // One app per store (a fresh database costs seconds on some); a fresh organization per test.
    beforeAll(async () => {
      const opened = await store();
      cleanup = opened.cleanup;
      t = orgApp(peers.smtp, opened.uri, { plugins: [scim({ store: opened.uri })] });
      owner = await new Browser(t.app).login('olga');
    });
    beforeEach(async () => {
      slug = `acme-${++made}`;
      const org = await owner.post('/auth/orgs', { name: 'Acme', slug });
      expect(org.status).toBe(201);
      orgId = org.body.id as string;
      directory = await Directory.of(t.app, owner, slug);
    });
    afterAll(async () => {
      await t?.auth.close();
      await cleanup?.();
    });

    const memberIds = async (): Promise<string[]> => ((await owner.get(`/auth/orgs/${slug}/members`)).body as Array<{ userId: string }>).map((m) => m.userId).sort();

    it('conformance: meta time filters, attributes and excludedAttributes, no bookkeeping fields, noTarget, If-None-Match and If-Match', async () => {
      const before = new Date(Date.now() - 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const ann = await directory.createUser('ann@example.com', { externalId: 'ext-ann' });
      expect(ann.status).toBe(201);
      // Only the schema's attributes: nothing of the record's bookkeeping.
      for (const key of ['orgId', 'userId', 'created', 'modified', 'version', 'consented']) expect(Object.keys(ann.body)).not.toContain(key);
      // An incremental sync: changed since a moment, in either spelling of it.
      const later = new Date(Date.now() + 60_000).toISOString();
      const ids = async (filter: string): Promise<string[]> => ((await directory.filterUsers(filter)).body.Resources as Array<{ id: string }>).map((r) => r.id);
      expect(await ids(`meta.lastModified gt "${before}"`)).toEqual([ann.body.id]);
      expect(await ids(`meta.created ge "${before}" and meta.created lt "${later}"`)).toEqual([ann.body.id]);
      expect(await ids(`meta.lastModified gt "${later}"`)).toEqual([]);
      expect(await ids(`meta.created eq "${ann.body.meta.created as string}"`)).toEqual([ann.body.id]);
      expect(await ids('meta.lastModified pr')).toEqual([ann.body.id]);
      expect((await directory.filterUsers('meta.created gt "yesterday"')).status).toBe(400);
      // attributes and excludedAttributes (id and schemas always come).
      const only = await directory.send('get', `/Users/${ann.body.id}?attributes=userName,name.givenName`);
      expect(only.body).toEqual({ schemas: [USER], id: ann.body.id, userName: 'ann@example.com', name: { givenName: 'ann' } });
      const listed = await directory.send('get', '/Users?attributes=userName');
      expect(listed.body.Resources).toEqual([{ schemas: [USER], id: ann.body.id, userName: 'ann@example.com' }]);
      // Hostile or malformed lists: 400 in SCIM's shape, never a walk into a prototype.
      for (const query of ['attributes=__proto__.polluted', 'excludedAttributes=constructor', 'attributes=a&attributes=b', `attributes=${'x,'.repeat(600)}`]) {
        const refused = await directory.send('get', `/Users?${query}`);
        expect([query.slice(0, 30), refused.status, refused.body.schemas]).toEqual([query.slice(0, 30), 400, [ERROR]]);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      const without = await directory.send('get', `/Users/${ann.body.id}?excludedAttributes=emails,groups,meta`);
      expect(Object.keys(without.body).sort()).toEqual(['active', 'externalId', 'id', 'name', 'schemas', 'userName']);
      // A remove whose filter selects nothing: 400 noTarget, nothing changed.
      const none = await directory.patchUser(ann.body.id as string, { op: 'remove', path: 'emails[type eq "home"]' });
      expect([none.status, none.body.scimType]).toEqual([400, 'noTarget']);
      // The directory's copy is current: 304; a DELETE naming an old version: 412, and the user stays.
      const same = await directory.send('get', `/Users/${ann.body.id}`, undefined, { 'If-None-Match': 'W/"1"' });
      expect([same.status, same.headers.etag]).toEqual([304, 'W/"1"']);
      expect((await directory.patchUser(ann.body.id as string, { op: 'replace', path: 'displayName', value: 'Ann' })).status).toBe(200);
      expect((await directory.send('get', `/Users/${ann.body.id}`, undefined, { 'If-None-Match': 'W/"1"' })).status).toBe(200);
      const stale = await directory.send('delete', `/Users/${ann.body.id}`, undefined, { 'If-Match': 'W/"1"' });
      expect([stale.status, stale.body.schemas]).toEqual([412, [ERROR]]);
      expect((await directory.send('get', `/Users/${ann.body.id}`)).status).toBe(200);
      expect((await directory.send('delete', `/Users/${ann.body.id}`, undefined, { 'If-Match': 'W/"2"' })).status).toBe(204);
    });

    it('a directory at full speed: 60 creates from 6 clients at once and 30 deactivations at once all answer 2xx, and the memberships follow', async () => {
      const names = Array.from({ length: 60 }, (_, i) => `burst${i}@example.com`);
      const made: Array<{ status: number; id: string }> = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (next < names.length) {
            const res = await directory.createUser(names[next++] as string);
            made.push({ status: res.status, id: res.body.id as string });
          }
        }),
      );
      expect(made.map((m) => m.status)).toEqual(names.map(() => 201));
      expect((await memberIds()).length).toBe(61);
      const off = made.slice(0, 30);
      const answers = await Promise.all(off.map((m) => directory.patchUser(m.id, { op: 'replace', value: { active: false } })));
      expect(answers.map((a) => [a.status, a.body.active])).toEqual(off.map(() => [200, false]));
      expect((await memberIds()).length).toBe(31);
      const listed = await directory.send('get', '/Users?count=100');
      expect([listed.body.totalResults, listed.body.Resources.length]).toEqual([60, 60]);
    });

    it('creates, reads, lists with filters and pages, replaces, patches, deactivates and deletes users; each is a member while active', async () => {
      const alice = await directory.createUser('alice@example.com', { externalId: 'ext-alice', displayName: 'Alice Doe', [ENTERPRISE]: { department: 'Sales', manager: { value: 'm-1' } } });
      expect(alice.status).toBe(201);
      expect(alice.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(alice.headers.etag).toBe('W/"1"');
      expect(alice.headers.location).toBe(`http://127.0.0.1:8080/auth/scim/v2/Users/${alice.body.id}`);
      expect(alice.body).toMatchObject({
        schemas: [USER, ENTERPRISE],
        userName: 'alice@example.com',
        externalId: 'ext-alice',
        active: true,
        emails: [{ value: 'alice@example.com', type: 'work', primary: true }],
        [ENTERPRISE]: { department: 'Sales', manager: { value: 'm-1' } },
        groups: [],
        meta: { resourceType: 'User', version: 'W/"1"', location: alice.headers.location },
      });
      const bob = await directory.createUser('bob@example.com', { externalId: 'ext-bob' });
      const carol = await directory.createUser('carol@example.org', { active: 'False' });
      expect([bob.status, carol.status, carol.body.active]).toEqual([201, 201, false]);

      for (const [body, taken] of [
        [{ userName: 'ALICE@example.com' }, 'userName'],
        [{ userName: 'dave@example.com', externalId: 'ext-bob' }, 'externalId'],
      ] as const) {
        const refused = await directory.send('post', '/Users', { schemas: [USER], ...body });
        expect([refused.status, refused.body]).toEqual([409, { schemas: [ERROR], status: '409', scimType: 'uniqueness', detail: expect.stringContaining(taken) }]);
      }

      expect((await directory.send('get', `/Users/${bob.body.id}`)).body.userName).toBe('bob@example.com');
      const missing = await directory.send('get', '/Users/no-such-id');
      expect([missing.status, missing.body.schemas, missing.body.status]).toEqual([404, [ERROR], '404']);

      const all = await directory.send('get', '/Users');
      expect(all.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 3, startIndex: 1, itemsPerPage: 3 });
      const paged = await directory.send('get', '/Users?startIndex=3&count=2');
      expect([paged.body.totalResults, paged.body.startIndex, paged.body.itemsPerPage]).toEqual([3, 3, 1]);
      const counted = await directory.send('get', '/Users?count=0');
      expect([counted.body.totalResults, counted.body.Resources]).toEqual([3, []]);
      const names = async (filter: string): Promise<string[]> => {
        const res = await directory.filterUsers(filter);
        expect(res.status).toBe(200);
        return (res.body.Resources as Array<{ userName: string }>).map((u) => u.userName).sort();
      };
      expect(await names('userName eq "ALICE@example.com"')).toEqual(['alice@example.com']);
      expect(await names('externalId eq "ext-bob"')).toEqual(['bob@example.com']);
      expect(await names('externalId eq "EXT-BOB"')).toEqual([]);
      expect(await names('emails.value co "carol"')).toEqual(['carol@example.org']);
      expect(await names('userName sw "b" or userName sw "c"')).toEqual(['bob@example.com', 'carol@example.org']);
      expect(await names('emails[type eq "work" and value ew "example.com"]')).toEqual(['alice@example.com', 'bob@example.com']);
      expect(await names('displayName eq "Alice Doe" and not (active eq false)')).toEqual(['alice@example.com']);
      expect(await names('active eq false')).toEqual(['carol@example.org']);
      const badFilter = await directory.filterUsers('userName eq');
      expect([badFilter.status, badFilter.body.scimType]).toEqual([400, 'invalidFilter']);

      // The owner, alice and bob; carol was provisioned inactive.
      expect(await memberIds()).toContain(owner.id);
      expect((await memberIds()).length).toBe(3);

      const stale = await directory.send('put', `/Users/${bob.body.id}`, { schemas: [USER], userName: 'bob@example.com', title: 'Engineer' }, { 'If-Match': 'W/"7"' });
      expect([stale.status, stale.body.status]).toEqual([412, '412']);
      const replaced = await directory.send('put', `/Users/${bob.body.id}`, { schemas: [USER], userName: 'bob@example.com', title: 'Engineer' }, { 'If-Match': 'W/"1"' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ title: 'Engineer', meta: { version: 'W/"2"' } });
      // A replacement clears what it does not name.
      expect(replaced.body.externalId).toBeUndefined();
      expect(replaced.body.emails).toEqual([]);

      const patched = await directory.patchUser(
        alice.body.id,
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'alice.doe@example.com' },
        { op: 'Replace', path: 'name.familyName', value: 'Smith' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'm-2' },
        { op: 'remove', path: 'displayName' },
      );
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        emails: [{ value: 'alice.doe@example.com', type: 'work', primary: true }],
        name: { familyName: 'Smith' },
        [ENTERPRISE]: { department: 'Sales', manager: { value: 'm-2' } },
      });
      expect(patched.body.displayName).toBeUndefined();
      const broken = await directory.patchUser(alice.body.id, { op: 'remove', path: 'userName' });
      expect([broken.status, broken.body.scimType]).toEqual([400, 'invalidValue']);
      expect((await directory.send('get', `/Users/${alice.body.id}`)).body.meta.version).toBe('W/"2"');

      const off = await directory.patchUser(alice.body.id, { op: 'replace', value: { active: false } });
      expect([off.status, off.body.active]).toEqual([200, false]);
      expect((await memberIds()).length).toBe(2);
      const on = await directory.patchUser(alice.body.id, { op: 'replace', path: 'active', value: 'True' });
      expect([on.status, on.body.active]).toEqual([200, true]);
      expect((await memberIds()).length).toBe(3);

      expect((await directory.send('delete', `/Users/${bob.body.id}`)).status).toBe(204);
      expect((await directory.send('get', `/Users/${bob.body.id}`)).status).toBe(404);
      expect((await directory.send('delete', `/Users/${bob.body.id}`)).status).toBe(404);
      expect((await memberIds()).length).toBe(2);

      await t.auth.events.flush();
      const { events } = await t.auth.events.list({
        types: ['scim.user.created', 'scim.user.updated', 'scim.user.deactivated', 'scim.user.reactivated', 'scim.user.deleted', 'org.member.deprovisioned'],
      });
      expect(
        events
          .filter((e) => e.data.org === orgId)
          .map((e) => e.type)
          .reverse(),
      ).toEqual([
        'scim.user.created',
        'scim.user.created',
        'org.member.deprovisioned',
        'scim.user.created',
        'scim.user.updated',
        'scim.user.updated',
        'org.member.deprovisioned',
        'scim.user.deactivated',
        'scim.user.reactivated',
        'org.member.deprovisioned',
        'scim.user.deleted',
      ]);
    });

    it('groups are teams of the organization: members, renames, removals and deletion follow; a mapping of group names gives roles', async () => {
      const [ann, ben] = await Promise.all(['ann@example.com', 'ben@example.com'].map(async (u) => (await directory.createUser(u)).body as { id: string }));
      const userIdOf = async (scimId: string): Promise<string> =>
        ((await t.auth.events.list({ types: ['scim.user.created'] })).events.find((e) => e.data.scimId === scimId) as { userId: string }).userId;
      await t.auth.events.flush();
      const [annId, benId] = [await userIdOf(ann!.id), await userIdOf(ben!.id)];
      const member = async (userId: string): Promise<{ roles: string[]; teams: string[] }> =>
        ((await owner.get(`/auth/orgs/${slug}/members`)).body as Array<{ userId: string; roles: string[]; teams: string[] }>).find((m) => m.userId === userId)!;
      const teams = async (): Promise<Array<{ id: string; name: string }>> => (await owner.get(`/auth/orgs/${slug}`)).body.teams;

      const made = await directory.send('post', '/Groups', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
        displayName: 'Engineering',
        externalId: 'g-eng',
        members: [{ value: ann!.id }],
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ displayName: 'Engineering', externalId: 'g-eng', members: [{ value: ann!.id }], meta: { resourceType: 'Group', version: 'W/"1"' } });
      const [team] = await teams();
      expect(team).toEqual({ id: expect.any(String), name: 'Engineering' });
      expect((await member(annId)).teams).toEqual([team!.id]);
      expect((await directory.send('get', `/Users/${ann!.id}`)).body.groups).toEqual([{ value: made.body.id, display: 'Engineering', $ref: expect.stringContaining(`/Groups/${made.body.id}`) }]);
      const dup = await directory.send('post', '/Groups', { displayName: 'ENGINEERING' });
      expect([dup.status, dup.body.scimType]).toEqual([409, 'uniqueness']);
      const foreign = await directory.send('post', '/Groups', { displayName: 'Ops', members: [{ value: 'no-such-user' }] });
      expect([foreign.status, foreign.body.scimType]).toEqual([400, 'invalidValue']);
      expect(await teams()).toHaveLength(1);

      // Entra ID's membership changes: add a list, remove by value filter; Okta's rename without a path.
      const gid = made.body.id as string;
      expect((await directory.send('patch', `/Groups/${gid}`, { Operations: [{ op: 'Add', path: 'members', value: [{ value: ben!.id }] }] })).status).toBe(200);
      expect((await member(benId)).teams).toEqual([team!.id]);
      expect((await directory.send('patch', `/Groups/${gid}`, { Operations: [{ op: 'Remove', path: `members[value eq "${ann!.id}"]` }] })).status).toBe(200);
      expect((await member(annId)).teams).toEqual([]);
      const renamed = await directory.send('patch', `/Groups/${gid}`, { Operations: [{ op: 'replace', value: { id: gid, displayName: 'Platform' } }] });
      expect([renamed.status, renamed.body.displayName, renamed.body.members]).toEqual([200, 'Platform', [{ value: ben!.id, $ref: expect.any(String) }]]);
      expect(await teams()).toEqual([{ id: team!.id, name: 'Platform' }]);
      const slim = await directory.send('get', `/Groups?filter=${encodeURIComponent('displayName eq "platform"')}&excludedAttributes=members`);
      expect([slim.body.totalResults, slim.body.Resources[0].members]).toEqual([1, undefined]);
      expect((await directory.send('patch', `/Groups/${gid}`, { Operations: [{ op: 'remove', path: 'members', value: [{ value: ben!.id }] }] })).body.members).toEqual([]);
      expect((await directory.send('put', `/Groups/${gid}`, { displayName: 'Platform', members: [{ value: ann!.id }, { value: ben!.id }] })).status).toBe(200);

      // The organization maps group names to roles: the directory then decides its users' roles.
      expect((await member(annId)).roles).toEqual(['member']);
      const mapped = await owner.put(`/auth/orgs/${slug}/scim/settings`, { groupRoles: { platform: 'billing' } });
      expect([mapped.status, mapped.body.groupRoles]).toEqual([200, { platform: 'billing' }]);
      expect((await member(annId)).roles).toEqual(['billing']);
      expect((await directory.send('patch', `/Groups/${gid}`, { Operations: [{ op: 'remove', path: `members[value eq "${ben!.id}"]` }] })).status).toBe(200);
      expect((await member(benId)).roles).toEqual(['member']);
      const ownerMapped = await owner.put(`/auth/orgs/${slug}/scim/settings`, { groupRoles: { platform: 'owner' } });
      expect(ownerMapped.status).toBe(400);

      expect((await directory.send('delete', `/Groups/${gid}`)).status).toBe(204);
      expect(await teams()).toEqual([]);
      expect((await member(annId)).roles).toEqual(['member']);
      expect((await directory.send('get', `/Groups/${gid}`)).status).toBe(404);
    });

    it("keeps organizations apart: another organization's token neither reads, lists nor changes a user", async () => {
      const alice = await directory.createUser('alice@example.com');
      expect((await owner.post('/auth/orgs', { name: 'Globex', slug: `${slug}-globex` })).status).toBe(201);
      const other = await Directory.of(t.app, owner, `${slug}-globex`);
      expect((await other.send('get', `/Users/${alice.body.id}`)).status).toBe(404);
      expect((await other.send('get', '/Users')).body.totalResults).toBe(0);
      expect((await other.filterUsers('userName eq "alice@example.com"')).body.totalResults).toBe(0);
      expect((await other.patchUser(alice.body.id, { op: 'replace', path: 'active', value: false })).status).toBe(404);
      expect((await other.send('delete', `/Users/${alice.body.id}`)).status).toBe(404);
      // The same person may be provisioned by both directories, each its own.
      expect((await other.createUser('alice@example.com')).status).toBe(201);
      const mine = await directory.send('get', `/Users/${alice.body.id}`);
      expect([mine.status, mine.body.active]).toEqual([200, true]);
    });
  });
}
