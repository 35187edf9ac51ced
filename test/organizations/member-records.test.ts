import { senderFunc } from '../../src';
import { MemoryOrgStore, organizations, type OrganizationsPlugin, type OrgRecord, type OrgStore } from '../../src/organizations';
import { makeApp } from '../support/auth-app';
import { describePostgres, sharedServer, startPostgres, dropSchema } from '../support/servers';
import { randomBytes } from 'node:crypto';
import { Browser } from './org-helpers';
import { OrgRepository } from '../../src/plugins/organizations/org-repository';
import { ORGS } from '../../src/plugins/organizations/org-schema';
import { MemoryDatabase } from '../../src/stores/memory/memory-database';
import type { Database } from '../../src/core/storage/database';
import type { Collection, Schema } from '../../src/core/storage/collection';

/** A caller of the service whose login is fresh. */
const caller = (id: string): { id: string; stepUp(): Promise<void> } => ({ id, stepUp: async () => undefined });

/** A store that counts the writes of organizations (not members), and fails the member writes named in `failNext`. */
function watchedStore(inner: OrgStore): {
  store: OrgStore;
  orgWrites: () => number;
  failNext: (method: 'updateMember' | 'update' | 'addMember', passFirst?: number) => void;
  /** Runs `hook` once, just before the next read of member `userId` (a request's target). */
  beforeRead: (userId: string, hook: () => Promise<unknown>) => void;
} {
  let orgWrites = 0;
  // Per method: how many calls still pass before the one that fails.
  const failing = new Map<string, number>();
  let armed: { userId: string; hook: () => Promise<unknown> } | undefined;
  const store = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (key === 'member' && armed !== undefined && args[1] === armed.userId) {
          const { hook } = armed;
          armed = undefined;
          await hook();
        }
        const pass = failing.get(key as string);
        if (pass !== undefined) {
          if (pass === 0) {
            failing.delete(key as string);
            throw new Error('simulated store failure');
          }
          failing.set(key as string, pass - 1);
        }
        if (key === 'update') {
          // Only a change that writes counts: `undefined` from the change leaves the organization.
          const change = args[1] as (org: unknown) => unknown;
          args[1] = (org: unknown): unknown => {
            const next = change(org);
            if (next !== undefined) orgWrites++;
            return next;
          };
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return { store, orgWrites: () => orgWrites, failNext: (method, passFirst = 0) => void failing.set(method, passFirst), beforeRead: (userId, hook) => void (armed = { userId, hook }) };
}

async function withOrgs(store: OrgStore | string): Promise<{ plugin: OrganizationsPlugin; close(): Promise<void>; app: ReturnType<typeof makeApp>['app'] }> {
  const plugin = organizations({ sender: senderFunc(() => undefined), store, roles: { billing: ['invoice:read'] } });
  const { app, auth } = makeApp({ plugins: [plugin] });
  return { plugin, app, close: () => auth.close() };
}

describe('members are records of their own', () => {
  it('a directory adding, changing and removing 50 members writes none of the organization; an owner change writes its owner list', async () => {
    const watched = watchedStore(new MemoryOrgStore());
    const t = await withOrgs(watched.store);
    const org = await t.plugin.service.create({ id: 'u-owner', name: 'Owner', picture: '' }, { name: 'Acme', slug: 'acme' });
    const before = watched.orgWrites();
    for (let i = 0; i < 50; i++) expect(await t.plugin.service.provision(org.id, `u-${i}`, ['member'], 'scim')).toBe('added');
    for (let i = 0; i < 10; i++) expect(await t.plugin.service.provision(org.id, `u-${i}`, ['admin'], 'scim')).toBe('changed');
    for (let i = 0; i < 10; i++) expect(await t.plugin.service.deprovision(org.id, `u-${i}`, 'scim')).toBe('removed');
    expect(watched.orgWrites() - before).toBe(0);
    expect(await watched.store.countMembers(org.id)).toBe(41);
    await t.plugin.service.updateMember('acme', caller('u-owner'), 'u-20', { roles: ['owner'] });
    expect(watched.orgWrites() - before).toBe(1);
    expect((await watched.store.get(org.id))?.owners).toEqual(['u-owner', 'u-20']);
    await t.close();
  });

  it('a page of members at a time: ?limit= and the next link (RFC 8288), a bad limit or cursor is a 400', async () => {
    const t = await withOrgs(new MemoryOrgStore());
    const owner = await new Browser(t.app).login('olga');
    const { id } = (await owner.post('/auth/orgs', { name: 'Paged', slug: 'paged' })).body as { id: string };
    for (let i = 0; i < 4; i++) await t.plugin.service.provision(id, `u-${i}`, ['member'], 'scim');
    const first = await owner.get('/auth/orgs/paged/members?limit=3');
    expect([first.status, (first.body as Array<{ userId: string }>).map((m) => m.userId)]).toEqual([200, [owner.id, 'u-0', 'u-1']]);
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.link ?? '')?.[1] ?? '';
    expect(next).toMatch(/^\/auth\/orgs\/paged\/members\?cursor=[A-Za-z0-9_-]+&limit=3$/);
    const second = await owner.get(next);
    expect([second.status, (second.body as Array<{ userId: string }>).map((m) => m.userId), second.headers.link]).toEqual([200, ['u-2', 'u-3'], undefined]);
    expect((await owner.get('/auth/orgs/paged/members')).body).toHaveLength(5);
    for (const bad of ['limit=0', 'limit=1001', 'limit=x', 'limit=1&limit=2', 'cursor=%00', 'cursor=bm90IGEgY3Vyc29y']) {
      const res = await owner.get(`/auth/orgs/paged/members?${bad}`);
      expect([bad, res.status, typeof res.body.error]).toEqual([bad, 400, 'string']);
    }
    await t.close();
  });

  it('owner is one write of the organization; a stop between it and the record: an owner stays, and the same request again finishes', async () => {
    const watched = watchedStore(new MemoryOrgStore());
    const t = await withOrgs(watched.store);
    const owners = async (): Promise<string[]> => (await watched.store.get(org.id))?.owners ?? [];
    const roles = async (id: string): Promise<readonly string[] | undefined> => (await t.plugin.service.find('two', id).catch(() => undefined))?.me.roles;
    const org = await t.plugin.service.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Two owners', slug: 'two' });
    await t.plugin.service.provision(org.id, 'bob', ['member'], 'scim');
    await t.plugin.service.updateMember('two', caller('ann'), 'bob', { roles: ['owner'] });
    expect([await owners(), await roles('bob')]).toEqual([['ann', 'bob'], ['owner']]);
    // Ann steps down to admin: the list loses her, then her record's write fails.
    watched.failNext('updateMember');
    await expect(t.plugin.service.updateMember('two', caller('ann'), 'ann', { roles: ['admin'] })).rejects.toThrow('simulated store failure');
    expect([await owners(), await roles('ann')]).toEqual([['bob'], ['member']]);
    // Bob is the last owner now, on the list and in fact.
    await expect(t.plugin.service.updateMember('two', caller('bob'), 'bob', { roles: ['admin'] })).rejects.toMatchObject({ reason: 'last_owner' });
    // The same request again finishes Ann's change (she is no owner now, so the owner gives it).
    expect((await t.plugin.service.updateMember('two', caller('bob'), 'ann', { roles: ['admin'] })).roles).toEqual(['admin']);
    // A promotion whose record write fails: she is an owner, with her other roles as they were; the same request again finishes.
    watched.failNext('updateMember');
    await expect(t.plugin.service.updateMember('two', caller('bob'), 'ann', { roles: ['owner', 'billing'] })).rejects.toThrow('simulated store failure');
    expect([await owners(), await roles('ann')]).toEqual([
      ['bob', 'ann'],
      ['owner', 'admin'],
    ]);
    expect((await t.plugin.service.updateMember('two', caller('bob'), 'ann', { roles: ['owner', 'billing'] })).roles).toEqual(['owner', 'billing']);
    // A promotion the owner list refuses (the caller is no owner) writes nothing at all.
    await t.plugin.service.provision(org.id, 'cid', ['admin'], 'scim');
    await expect(t.plugin.service.updateMember('two', caller('cid'), 'cid', { roles: ['owner'] })).rejects.toMatchObject({ status: 403 });
    expect([await owners(), (await watched.store.member(org.id, 'cid'))?.roles]).toEqual([['bob', 'ann'], ['admin']]);
    await t.close();
  });

  it("a caller's power is the one it has when the change is written: removed or demoted meanwhile, nothing it asked stays", async () => {
    const watched = watchedStore(new MemoryOrgStore());
    const t = await withOrgs(watched.store);
    const s = t.plugin.service;
    const org = await s.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Acme', slug: 'acme' });
    await s.provision(org.id, 'mallory', ['admin'], 'scim');
    await s.provision(org.id, 'accomplice', ['member'], 'scim');
    // Mallory's request has read her power; the owner removes her before it writes.
    watched.beforeRead('accomplice', () => s.removeMember('acme', caller('ann'), 'mallory'));
    await expect(s.updateMember('acme', caller('mallory'), 'accomplice', { roles: ['admin'] })).rejects.toMatchObject({ status: 403, reason: 'role_required' });
    expect((await watched.store.member(org.id, 'accomplice'))?.roles).toEqual(['member']);
    // An owner demoted while her request runs gives no one owner.
    await s.provision(org.id, 'olive', ['member'], 'scim');
    await s.updateMember('acme', caller('ann'), 'olive', { roles: ['owner'] });
    watched.beforeRead('accomplice', () => s.updateMember('acme', caller('ann'), 'olive', { roles: ['member'] }));
    await expect(s.updateMember('acme', caller('olive'), 'accomplice', { roles: ['owner'] })).rejects.toMatchObject({ status: 403 });
    expect([(await watched.store.get(org.id))?.owners, (await watched.store.member(org.id, 'accomplice'))?.roles]).toEqual([['ann'], ['member']]);
    // An admin removed while her removal of a member runs: the member is put back.
    await s.provision(org.id, 'mallory', ['admin'], 'scim');
    watched.beforeRead('accomplice', () => s.removeMember('acme', caller('ann'), 'mallory'));
    await expect(s.removeMember('acme', caller('mallory'), 'accomplice')).rejects.toMatchObject({ status: 403 });
    expect((await watched.store.member(org.id, 'accomplice'))?.roles).toEqual(['member']);
    await t.close();
  });

  it('members joining at once never pass maxMembers (a join counts after it is written and takes itself back past the limit)', async () => {
    const plugin = organizations({ sender: senderFunc(() => undefined), maxMembers: 3 });
    const { auth } = makeApp({ plugins: [plugin] });
    const org = await plugin.service.create({ id: 'olga', name: 'Olga', picture: '' }, { name: 'Acme', slug: 'acme' });
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => plugin.service.provision(org.id, `p${round}-${i}`, ['member'], 'scim')));
      const count = (await plugin.service.members('acme', 'olga', { limit: 1000 })).members.length;
      expect(count).toBeLessThanOrEqual(3);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ reason: 'limit_reached' });
    }
    await auth.close();
  });

  it('a cursor no page gave (NUL in its id, half a UTF-16 pair) is a 400, never a store error', async () => {
    const t = await withOrgs(new MemoryOrgStore());
    const owner = await new Browser(t.app).login('olga');
    await owner.post('/auth/orgs', { name: 'Paged', slug: 'paged' });
    const cursor = (value: string, id: string): string => Buffer.from(JSON.stringify([value, id])).toString('base64url');
    for (const bad of [cursor('org_x\u0000', 'org_x/\u0000y'), cursor('\ud800', 'x'), cursor('x', '\udfff')]) {
      const res = await owner.get(`/auth/orgs/paged/members?cursor=${bad}`);
      expect([res.status, res.body.error]).toEqual([400, 'cursor is malformed: pass the next of the previous page']);
    }
    await t.close();
  });

  it("a user id another one starts with, up to the index's separator, finds only its own organizations", async () => {
    const store = new MemoryOrgStore();
    await store.addMember({ orgId: 'org_1', userId: 'x\u0000org_1', roles: [], teams: [], joined: 1 });
    await store.add({ id: 'org_1', name: 'One', slug: 'one', created: 1, owners: ['x\u0000org_1'], teams: [] });
    expect(await store.ofUser('x')).toEqual([]);
    expect((await store.ofUser('x\u0000org_1')).map((o) => o.id)).toEqual(['org_1']);
  });

  it('a user deleted: its organizations pass to their longest-standing admin, else member; one left empty goes', async () => {
    const store = new MemoryOrgStore();
    const t = await withOrgs(store);
    const shared = await t.plugin.service.create({ id: 'leaver', name: 'L', picture: '' }, { name: 'Shared', slug: 'shared' });
    await t.plugin.service.provision(shared.id, 'early-member', ['member'], 'scim');
    await t.plugin.service.provision(shared.id, 'late-admin', ['admin'], 'scim');
    const alone = await t.plugin.service.create({ id: 'leaver', name: 'L', picture: '' }, { name: 'Alone', slug: 'alone' });
    await t.plugin.service.userDeleted('leaver');
    expect((await store.member(shared.id, 'late-admin'))?.roles).toEqual(['admin']);
    expect((await store.get(shared.id))?.owners).toEqual(['late-admin']);
    expect((await t.plugin.service.authorize('shared', 'late-admin', 'org:delete')).roles).toEqual(['owner', 'admin']);
    expect(await store.member(shared.id, 'leaver')).toBeUndefined();
    expect(await store.get(alone.id)).toBeUndefined();
    expect(await store.ofUser('leaver')).toEqual([]);
    await t.close();
  });
});

const postgres = sharedServer(startPostgres);
describePostgres('members are records of their own (PostgreSQL, two instances)', () => {
  it('two owners stepping down at once on two instances: one does, the other is refused, and one owner stays', async () => {
    const server = await postgres();
    const schema = `mr_${randomBytes(5).toString('hex')}`;
    const uri = `${server.url}?schema=${schema}`;
    const a = await withOrgs(uri);
    const b = await withOrgs(uri);
    try {
      const org = await a.plugin.service.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Race', slug: 'race' });
      await a.plugin.service.provision(org.id, 'bob', ['member'], 'scim');
      await a.plugin.service.updateMember('race', caller('ann'), 'bob', { roles: ['owner'] });
      for (let round = 0; round < 5; round++) {
        const results = await Promise.allSettled([
          a.plugin.service.updateMember('race', caller('ann'), 'ann', { roles: ['admin'] }),
          b.plugin.service.updateMember('race', caller('bob'), 'bob', { roles: ['admin'] }),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { reason: 'last_owner' } });
        const owners = [];
        for (const id of ['ann', 'bob']) if ((await a.plugin.service.authorize('race', id, 'org:delete').catch(() => undefined)) !== undefined) owners.push(id);
        expect(owners).toHaveLength(1);
        // The one still owner makes the other one again for the next round.
        await a.plugin.service.updateMember('race', caller(owners[0]!), owners[0] === 'ann' ? 'bob' : 'ann', { roles: ['owner'] });
      }
    } finally {
      await a.close();
      await b.close();
      await dropSchema(server.url, schema);
    }
  });

  it('Ann steps down on A while the directory syncs her on B and Bob leaves on C, 20 times: an owner always stays', async () => {
    const server = await postgres();
    const schema = `mr_${randomBytes(5).toString('hex')}`;
    const uri = `${server.url}?schema=${schema}`;
    const [a, b, c] = [await withOrgs(uri), await withOrgs(uri), await withOrgs(uri)];
    try {
      for (let round = 0; round < 20; round++) {
        const slug = `r${round}`;
        const org = await a.plugin.service.create({ id: 'ann', name: 'Ann', picture: '' }, { name: slug, slug });
        await a.plugin.service.provision(org.id, 'bob', ['member'], 'scim');
        await a.plugin.service.updateMember(slug, caller('ann'), 'bob', { roles: ['owner'] });
        const delay = round % 8;
        await Promise.allSettled([
          a.plugin.service.updateMember(slug, caller('ann'), 'ann', { roles: ['admin'] }),
          new Promise((r) => setTimeout(r, delay)).then(() => b.plugin.service.provision(org.id, 'ann', ['member'], 'scim')),
          new Promise((r) => setTimeout(r, delay + 1)).then(() => c.plugin.service.removeMember(slug, caller('bob'), 'bob')),
        ]);
        const members = (await a.plugin.service.members(slug, 'ann', { limit: 10 })).members;
        expect([round, members.some((m) => m.roles.includes('owner'))]).toEqual([round, true]);
      }
    } finally {
      await a.close();
      await b.close();
      await c.close();
      await dropSchema(server.url, schema);
    }
  });
});

describe('organizations of before 2026-11-29 move once, by one instance', () => {
  it('an instance that finds another moving an organization waits for it: a member removed after the move stays removed', async () => {
    const shared = new MemoryDatabase();
    await shared.collection(ORGS).insert({
      id: 'org_a',
      name: 'Alpha',
      slug: 'alpha',
      created: 100,
      teams: [],
      members: [
        { userId: 'u1', roles: ['owner'], teams: [], joined: 100 },
        { userId: 'mallory', roles: ['admin'], teams: [], joined: 102 },
      ],
    } as unknown as OrgRecord);
    // Instance B writes the member records slowly: they wait for `release`.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const writing = new Promise<void>((resolve) => (started = resolve));
    const slowDb: Database = {
      collection<T>(schema: Schema<T>): Collection<T> {
        const inner = shared.collection(schema);
        if (schema.family !== 'org_members') return inner;
        const insert = inner.insert.bind(inner);
        return Object.assign(Object.create(inner) as Collection<T>, {
          insert: async (doc: T) => {
            started();
            await gate;
            return insert(doc);
          },
        });
      },
      close: () => shared.close(),
    };
    const b = await withOrgs(new OrgRepository(slowDb));
    const a = await withOrgs(new OrgRepository(shared));
    const bFirst = b.plugin.service.mine('u1');
    await writing;
    // A's first call waits for B's move; the owner's removal lands after it.
    const removal = a.plugin.service.removeMember('alpha', caller('u1'), 'mallory');
    await new Promise((r) => setTimeout(r, 300));
    release();
    await Promise.all([bFirst, removal]);
    expect(await a.plugin.service.find('alpha', 'mallory').catch((e: { status?: number }) => e.status)).toBe(404);
    expect(await b.plugin.service.find('alpha', 'mallory').catch((e: { status?: number }) => e.status)).toBe(404);
    expect((await a.plugin.service.find('alpha', 'u1')).me.roles).toEqual(['owner']);
    await a.close();
    await b.close();
  });
});
