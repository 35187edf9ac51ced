import { senderFunc } from '../../src';
import { MemoryOrgStore, organizations, type OrganizationsPlugin, type OrgStore } from '../../src/organizations';
import { makeApp } from '../support/auth-app';
import { describePostgres, sharedServer, startPostgres, dropSchema } from '../support/servers';
import { randomBytes } from 'node:crypto';
import { Browser } from './org-helpers';

/** A caller of the service whose login is fresh. */
const caller = (id: string): { id: string; stepUp(): Promise<void> } => ({ id, stepUp: async () => undefined });

/** A store that counts the writes of organizations (not members), and fails the member writes named in `failNext`. */
function watchedStore(inner: OrgStore): { store: OrgStore; orgWrites: () => number; failNext: (method: 'updateMember' | 'update' | 'addMember', passFirst?: number) => void } {
  let orgWrites = 0;
  // Per method: how many calls still pass before the one that fails.
  const failing = new Map<string, number>();
  const store = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
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
  return { store, orgWrites: () => orgWrites, failNext: (method, passFirst = 0) => void failing.set(method, passFirst) };
}

async function withOrgs(store: OrgStore | string): Promise<{ plugin: OrganizationsPlugin; close(): Promise<void>; app: ReturnType<typeof makeApp>['app'] }> {
  const plugin = organizations({ sender: senderFunc(() => undefined), store });
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

  it('a stop between the owner list and the record: the organization keeps an owner, and the same request again finishes', async () => {
    const watched = watchedStore(new MemoryOrgStore());
    const t = await withOrgs(watched.store);
    const org = await t.plugin.service.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Two owners', slug: 'two' });
    await t.plugin.service.provision(org.id, 'bob', ['member'], 'scim');
    await t.plugin.service.updateMember('two', caller('ann'), 'bob', { roles: ['owner'] });
    // Ann steps down; the record's write fails after the list lost her (its first call only found that the list goes first).
    watched.failNext('updateMember', 1);
    await expect(t.plugin.service.updateMember('two', caller('ann'), 'ann', { roles: ['admin'] })).rejects.toThrow('simulated store failure');
    expect((await watched.store.member(org.id, 'ann'))?.roles).toEqual(['owner']);
    expect((await watched.store.get(org.id))?.owners).toEqual(['bob']);
    // The list names fewer owners than there are, never more: Bob cannot step down now, though Ann still is one.
    await expect(t.plugin.service.updateMember('two', caller('bob'), 'bob', { roles: ['admin'] })).rejects.toMatchObject({ reason: 'last_owner' });
    // The same request again finishes Ann's change.
    expect((await t.plugin.service.updateMember('two', caller('ann'), 'ann', { roles: ['admin'] })).roles).toEqual(['admin']);
    expect((await watched.store.get(org.id))?.owners).toEqual(['bob']);
    // A promotion whose list write fails: the record says owner, the list does not yet; its retry lists her.
    watched.failNext('update');
    await expect(t.plugin.service.updateMember('two', caller('bob'), 'ann', { roles: ['owner'] })).rejects.toThrow('simulated store failure');
    expect((await watched.store.member(org.id, 'ann'))?.roles).toEqual(['owner']);
    expect((await watched.store.get(org.id))?.owners).toEqual(['bob']);
    await t.plugin.service.updateMember('two', caller('bob'), 'ann', { roles: ['owner'] });
    expect((await watched.store.get(org.id))?.owners).toEqual(['bob', 'ann']);
    await t.close();
  });

  it('a user deleted: its organizations pass to their longest-standing admin, else member; one left empty goes', async () => {
    const store = new MemoryOrgStore();
    const t = await withOrgs(store);
    const shared = await t.plugin.service.create({ id: 'leaver', name: 'L', picture: '' }, { name: 'Shared', slug: 'shared' });
    await t.plugin.service.provision(shared.id, 'early-member', ['member'], 'scim');
    await t.plugin.service.provision(shared.id, 'late-admin', ['admin'], 'scim');
    const alone = await t.plugin.service.create({ id: 'leaver', name: 'L', picture: '' }, { name: 'Alone', slug: 'alone' });
    await t.plugin.service.userDeleted('leaver');
    expect((await store.member(shared.id, 'late-admin'))?.roles).toEqual(['owner', 'admin']);
    expect((await store.get(shared.id))?.owners).toEqual(['late-admin']);
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
});
