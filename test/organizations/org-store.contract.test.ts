import { randomBytes } from 'node:crypto';
import { SlugTakenError, type OrgInvitation, type OrgMember, type OrgRecord, type OrgStore } from '../../src/organizations';
import { createOrgStore } from '../../src/organizations';
import { olderMongoRecord, withLegacyLevel, withLegacyMongo, withLegacyPostgres } from '../support/legacy-stores';
import { familyOnEveryDatabase } from '../support/every-store';
import { contractHooks, type Harness } from '../support/contract';
import { describeMongo, dropMongoDb, freshMongoUri } from '../support/mongo';
import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { openDatabase } from '../../src/stores/open-database';
import { ORG_MEMBERS, ORGS } from '../../src/plugins/organizations/org-schema';
import { describeMysql, describePostgres, dropSchema, freshMysqlDatabase, sharedServer, startMysql, startPostgres } from '../support/servers';

function org(id: string, slug: string, owner: string, created = 1_000): OrgRecord {
  return { id, name: `Org ${slug}`, slug, created, owners: [owner], teams: [] };
}

function member(orgId: string, userId: string, joined: number, roles = ['member'], teams: string[] = []): OrgMember {
  return { orgId, userId, roles, teams, joined };
}

/** An organization as the service makes one: its owner's record, then the organization. */
async function addOrg(store: OrgStore, record: OrgRecord): Promise<boolean> {
  await store.addMember(member(record.id, record.owners[0]!, record.created, ['owner']));
  return store.add(record);
}

function invitation(id: string, orgId: string, email: string, created = 2_000): OrgInvitation {
  return { id, orgId, email, roles: ['member'], inviter: 'u-owner', created, expires: created + 60_000 };
}

function orgStoreContract(name: string, describeFn: jest.Describe, makeHarness: () => Promise<Harness<OrgStore>>): void {
  describeFn(`${name} organization store (contract)`, () => {
    const ctx = contractHooks(makeHarness);

    it('adds once per id and per slug, reads by id and slug, updates (id kept) and deletes', async () => {
      const a = org('org_a', 'acme', 'u1');
      expect(await ctx.store.add(a)).toBe(true);
      expect(await ctx.store.add({ ...a, slug: 'other' })).toBe(false);
      expect(await ctx.store.add(org('org_b', 'acme', 'u2'))).toBe(false);
      expect(await ctx.store.get('org_a')).toEqual(a);
      expect(await ctx.store.bySlug('acme')).toEqual(a);
      expect(await ctx.store.get('org_b')).toBeUndefined();
      expect(await ctx.store.bySlug('nope')).toBeUndefined();
      const renamed = await ctx.store.update('org_a', (o) => ({ ...o, id: 'org_x', name: 'Acme Inc', slug: 'acme-inc' }));
      expect(renamed).toMatchObject({ id: 'org_a', name: 'Acme Inc', slug: 'acme-inc' });
      expect(await ctx.store.bySlug('acme')).toBeUndefined();
      expect(await ctx.store.bySlug('acme-inc')).toEqual(renamed);
      expect(await ctx.store.update('org_a', () => undefined)).toEqual(renamed);
      expect(await ctx.store.update('missing', (o) => o)).toBeUndefined();
      expect(await ctx.store.delete('org_a')).toBe(true);
      expect(await ctx.store.delete('org_a')).toBe(false);
      expect(await ctx.store.get('org_a')).toBeUndefined();
      expect(await ctx.store.bySlug('acme-inc')).toBeUndefined();
    });

    it('refuses a slug of another organization on update, and leaves both as they were', async () => {
      await ctx.store.add(org('org_a', 'alpha', 'u1'));
      await ctx.store.add(org('org_b', 'beta', 'u1', 2_000));
      await expect(ctx.store.update('org_b', (o) => ({ ...o, slug: 'alpha', name: 'changed' }))).rejects.toBeInstanceOf(SlugTakenError);
      expect(await ctx.store.get('org_b')).toMatchObject({ slug: 'beta', name: 'Org beta' });
      expect((await ctx.store.bySlug('alpha'))?.id).toBe('org_a');
    });

    it('finds the organizations of a user in the order joined, following membership changes', async () => {
      await addOrg(ctx.store, org('org_2', 'two', 'u1', 2_000));
      await addOrg(ctx.store, org('org_1', 'one', 'u2', 1_000));
      expect((await ctx.store.ofUser('u1')).map((o) => o.id)).toEqual(['org_2']);
      expect(await ctx.store.addMember(member('org_1', 'u1', 3_000))).toBe(true);
      expect(await ctx.store.addMember(member('org_1', 'u1', 4_000))).toBe(false);
      expect((await ctx.store.ofUser('u1')).map((o) => o.id)).toEqual(['org_2', 'org_1']);
      expect(await ctx.store.removeMember('org_2', 'u1')).toEqual(member('org_2', 'u1', 2_000, ['owner']));
      expect(await ctx.store.removeMember('org_2', 'u1')).toBeUndefined();
      expect((await ctx.store.ofUser('u1')).map((o) => o.id)).toEqual(['org_1']);
      await ctx.store.delete('org_1');
      expect(await ctx.store.ofUser('u1')).toEqual([]);
      expect(await ctx.store.member('org_1', 'u1')).toBeUndefined();
      expect(await ctx.store.ofUser('nobody')).toEqual([]);
    });

    it('keeps members as records of their own: read one, page by joining order, by team and by role, count, update one atomically', async () => {
      await addOrg(ctx.store, org('org_m', 'many', 'u0', 1));
      for (let i = 1; i <= 7; i++) await ctx.store.addMember(member('org_m', `u${i}`, 10 + i, i % 2 === 0 ? ['admin'] : ['member'], i <= 3 ? ['team_a'] : []));
      await addOrg(ctx.store, org('org_n', 'next', 'u1', 5));
      expect(await ctx.store.member('org_m', 'u3')).toEqual(member('org_m', 'u3', 13, ['member'], ['team_a']));
      expect(await ctx.store.countMembers('org_m')).toBe(8);
      const first = await ctx.store.members('org_m', { limit: 5 });
      expect(first.members.map((m) => m.userId)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
      const rest = await ctx.store.members('org_m', { cursor: first.next, limit: 5 });
      expect(rest.members.map((m) => m.userId)).toEqual(['u5', 'u6', 'u7']);
      expect(rest.next).toBeUndefined();
      expect((await ctx.store.members('org_m', { team: 'team_a', limit: 10 })).members.map((m) => m.userId)).toEqual(['u1', 'u2', 'u3']);
      expect((await ctx.store.members('org_m', { role: 'admin', limit: 10 })).members.map((m) => m.userId)).toEqual(['u2', 'u4', 'u6']);
      expect((await ctx.store.members('org_m', { role: 'owner', limit: 10 })).members.map((m) => m.userId)).toEqual(['u0']);
      const changed = await ctx.store.updateMember('org_m', 'u2', (m) => ({ ...m, orgId: 'org_x', userId: 'other', roles: ['member'], teams: [] }));
      expect(changed).toEqual(member('org_m', 'u2', 12, ['member'], []));
      expect((await ctx.store.members('org_m', { team: 'team_a', limit: 10 })).members.map((m) => m.userId)).toEqual(['u1', 'u3']);
      expect(await ctx.store.updateMember('org_m', 'u2', () => undefined)).toEqual(changed);
      expect(await ctx.store.updateMember('org_m', 'nobody', (m) => m)).toBeUndefined();
      await expect(ctx.store.members('org_m', { cursor: 'not a cursor', limit: 5 })).rejects.toMatchObject({ status: 400 });
    });

    it('lists every organization by slug, page by page, following slug changes and deletions (the admin console)', async () => {
      for (const [i, slug] of ['delta', 'alpha', 'charlie', 'bravo', 'echo'].entries()) await ctx.store.add(org(`org_${i}`, slug, 'u1', 1_000 + i));
      const first = await ctx.store.list!({ limit: 2 });
      expect(first.orgs.map((o) => o.slug)).toEqual(['alpha', 'bravo']);
      const second = await ctx.store.list!({ cursor: first.next, limit: 2 });
      expect(second.orgs.map((o) => o.slug)).toEqual(['charlie', 'delta']);
      const last = await ctx.store.list!({ cursor: second.next, limit: 2 });
      expect(last.orgs.map((o) => o.slug)).toEqual(['echo']);
      expect(last.next).toBeUndefined();
      await ctx.store.update('org_1', (o) => ({ ...o, slug: 'zulu' }));
      await ctx.store.delete('org_3');
      expect((await ctx.store.list!({ limit: 10 })).orgs.map((o) => o.slug)).toEqual(['charlie', 'delta', 'echo', 'zulu']);
    });

    it('adds and updates members atomically: 20 concurrent joins and 20 concurrent role changes of one member all land', async () => {
      await addOrg(ctx.store, org('org_c', 'crowd', 'u0'));
      await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.store.addMember(member('org_c', `m${i}`, i))));
      expect(await ctx.store.countMembers('org_c')).toBe(21);
      expect((await ctx.store.ofUser('m7')).map((o) => o.id)).toEqual(['org_c']);
      await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.store.updateMember('org_c', 'm1', (m) => ({ ...m, teams: [...m.teams, `team_${i}`] }))));
      expect((await ctx.store.member('org_c', 'm1'))?.teams).toHaveLength(20);
      expect(await ctx.store.get('org_c')).toEqual(org('org_c', 'crowd', 'u0'));
    });

    it('keeps invitations per organization; taking one is atomic and once; deleting the organization deletes them', async () => {
      await ctx.store.add(org('org_i', 'inv', 'u1'));
      await ctx.store.add(org('org_j', 'jay', 'u1'));
      await ctx.store.addInvitation(invitation('i2', 'org_i', 'b@example.com', 3_000));
      await ctx.store.addInvitation(invitation('i1', 'org_i', 'a@example.com', 2_000));
      await ctx.store.addInvitation(invitation('j1', 'org_j', 'c@example.com'));
      expect((await ctx.store.invitations('org_i')).map((i) => i.id)).toEqual(['i1', 'i2']);
      expect(await ctx.store.invitations('org_i')).toContainEqual(invitation('i1', 'org_i', 'a@example.com', 2_000));
      const raced = await Promise.all(Array.from({ length: 8 }, () => ctx.store.takeInvitation('i1')));
      expect(raced.filter((r) => r !== undefined)).toEqual([invitation('i1', 'org_i', 'a@example.com', 2_000)]);
      expect(await ctx.store.takeInvitation('i1')).toBeUndefined();
      expect(await ctx.store.deleteInvitation('i2')).toBe(true);
      expect(await ctx.store.deleteInvitation('i2')).toBe(false);
      await ctx.store.addInvitation(invitation('i3', 'org_i', 'd@example.com'));
      expect(await ctx.store.delete('org_i')).toBe(true);
      expect(await ctx.store.takeInvitation('i3')).toBeUndefined();
      expect((await ctx.store.invitations('org_j')).map((i) => i.id)).toEqual(['j1']);
    });

    it('survives a restart when persistent', async () => {
      if (!ctx.harness.persistent) return;
      const a = org('org_p', 'kept', 'u1');
      await addOrg(ctx.store, a);
      await ctx.store.addInvitation(invitation('ip', 'org_p', 'p@example.com'));
      await ctx.store.close();
      ctx.store = ctx.harness.open();
      expect(await ctx.store.bySlug('kept')).toEqual(a);
      expect((await ctx.store.ofUser('u1')).map((o) => o.id)).toEqual(['org_p']);
      expect((await ctx.store.takeInvitation('ip'))?.email).toBe('p@example.com');
    });
  });
}

familyOnEveryDatabase(orgStoreContract, createOrgStore);
const postgres = sharedServer(startPostgres);
const mariadb = sharedServer(startMysql);

/** What the stores of before 2026-11-27 wrote, written as they wrote it: after an upgrade, organizations, slugs, members and invitations are found. */
/** An organization as the stores of before 2026-11-29 kept it: its members inside it. */
function olderOrg(id: string, slug: string, owner: string, created: number, others: string[] = []): Record<string, unknown> {
  const { owners: _owners, ...rest } = org(id, slug, owner, created);
  return { ...rest, members: [{ userId: owner, roles: ['owner'], teams: [], joined: created }, ...others.map((userId, i) => ({ userId, roles: ['member'], teams: [], joined: created + 1 + i }))] };
}

describe('organizations of the older stores are read after an upgrade', () => {
  const older = [olderOrg('org_a', 'alpha', 'u1', 100), olderOrg('org_b', 'beta', 'u1', 50)];
  const pending = invitation('inv-1', 'org_a', 'x@example.com');
  const check = async (store: OrgStore): Promise<void> => {
    expect((await store.ofUser('u1')).map((o) => o.id)).toEqual(['org_b', 'org_a']);
    expect(await store.get('org_a')).toEqual(org('org_a', 'alpha', 'u1', 100));
    // `owner` is the organization's list; the record keeps the other roles (none here).
    expect(await store.member('org_a', 'u1')).toEqual(member('org_a', 'u1', 100, []));
    expect((await store.bySlug('alpha'))?.id).toBe('org_a');
    expect(await store.add(org('org_c', 'beta', 'u2'))).toBe(false);
    expect((await store.takeInvitation('inv-1'))?.email).toBe('x@example.com');
    await store.close();
  };

  it('level: the org! and orginvite! keys', async () => {
    await withLegacyLevel([...older.map((o): [string, string] => [`org!${String(o.id)}`, JSON.stringify(o)]), [`orginvite!${pending.id}`, JSON.stringify(pending)]], (uri) =>
      check(createOrgStore(uri)),
    );
  });

  it('MongoDB: the orgs and orgs_invitations collections', async () => {
    await withLegacyMongo({ orgs: older.map((o) => olderMongoRecord(o, 'id')), orgs_invitations: [olderMongoRecord(pending, 'id')] }, (uri) => check(createOrgStore(uri)));
  });

  describePostgres('PostgreSQL', () => {
    it('the authgate_orgs and authgate_org_invitations tables', async () => {
      await withLegacyPostgres(
        (await postgres()).url,
        async (sql, schema) => {
          await sql(`CREATE TABLE "${schema}"."authgate_orgs" (id text COLLATE "C" PRIMARY KEY, slug text COLLATE "C" NOT NULL UNIQUE, created bigint NOT NULL, doc jsonb NOT NULL)`);
          await sql(`CREATE TABLE "${schema}"."authgate_org_invitations" (id text COLLATE "C" PRIMARY KEY, org_id text COLLATE "C" NOT NULL, created bigint NOT NULL, doc jsonb NOT NULL)`);
          for (const o of older) await sql(`INSERT INTO "${schema}"."authgate_orgs" (id, slug, created, doc) VALUES ($1, $2, $3, $4)`, [o.id, o.slug, o.created, JSON.stringify(o)] as unknown[]);
          await sql(`INSERT INTO "${schema}"."authgate_org_invitations" (id, org_id, created, doc) VALUES ($1, $2, $3, $4)`, [pending.id, pending.orgId, pending.created, JSON.stringify(pending)]);
        },
        (uri) => check(createOrgStore(uri)),
      );
    });
  });
});

/**
 * The stores of 2026-11-27 to 2026-11-29 kept an organization's members inside it: at first use
 * they move to records of their own, records first, so an upgrade stopped half-way (here: some
 * records written, the organization not yet changed) is finished by the next start.
 */
function movesMembers(name: string, describeFn: jest.Describe, makeUri: () => Promise<{ uri: string; cleanup: () => Promise<void> }>): void {
  describeFn(`${name}: members kept inside an organization move to their own records at first use`, () => {
    it('moves them, lists the owners, and finishes a move stopped half-way', async () => {
      const { uri, cleanup } = await makeUri();
      try {
        const raw = openDatabase(uri, 'organization');
        const orgs = raw.collection(ORGS);
        await orgs.insert(olderOrg('org_a', 'alpha', 'u1', 100, ['u2', 'u3']) as unknown as OrgRecord);
        await orgs.insert(olderOrg('org_b', 'beta', 'u2', 50) as unknown as OrgRecord);
        // A move stopped half-way: one record of org_a is there already, the organization still holds its list.
        await raw.collection(ORG_MEMBERS).insert(member('org_a', 'u2', 101));
        await raw.close();
        const store = createOrgStore(uri);
        expect((await store.ofUser('u2')).map((o) => o.id)).toEqual(['org_b', 'org_a']);
        expect(await store.get('org_a')).toEqual(org('org_a', 'alpha', 'u1', 100));
        expect(await store.countMembers('org_a')).toBe(3);
        expect((await store.members('org_a', { limit: 10 })).members).toEqual([member('org_a', 'u1', 100, []), member('org_a', 'u2', 101), member('org_a', 'u3', 102)]);
        expect((await store.get('org_b'))?.owners).toEqual(['u2']);
        await store.close();
        // Again: nothing left to move, nothing doubled.
        const again = createOrgStore(uri);
        expect(await again.countMembers('org_a')).toBe(3);
        await again.close();
      } finally {
        await cleanup();
      }
    });
  });
}

movesMembers('SQLite', describe, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-orgmove-'));
  return { uri: `sqlite://${join(dir, 'auth.db')}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
movesMembers('level', describe, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-orgmove-'));
  return { uri: `level://${dir}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
movesMembers('PostgreSQL', describePostgres, async () => {
  const server = await postgres();
  const schema = `m_${randomBytes(6).toString('hex')}`;
  return { uri: `${server.url}?schema=${schema}`, cleanup: () => dropSchema(server.url, schema) };
});
movesMembers('MySQL (MariaDB)', describeMysql, async () => {
  const fresh = await freshMysqlDatabase((await mariadb()).url);
  return { uri: fresh.uri, cleanup: () => fresh.drop() };
});
movesMembers('mongo', describeMongo, async () => {
  const { uri, db } = await freshMongoUri('org');
  return { uri, cleanup: () => dropMongoDb(db) };
});
