import { senderFunc } from '../../src';
import { MemoryOrgStore, organizations, type OrganizationsPlugin, type OrgStore } from '../../src/organizations';
import { makeApp } from '../support/auth-app';

const caller = (id: string): { id: string; stepUp(): Promise<void> } => ({ id, stepUp: async () => undefined });

/** A store that runs `hook` once before the next call of `method` whose arguments `match`. */
function hooked(inner: OrgStore): { store: OrgStore; before: (method: string, match: (args: unknown[]) => boolean, hook: () => Promise<unknown>) => void } {
  const armed: Array<{ method: string; match: (args: unknown[]) => boolean; hook: () => Promise<unknown> }> = [];
  const store = new Proxy(inner, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const i = armed.findIndex((a) => a.method === key && a.match(args));
        if (i >= 0) {
          const [a] = armed.splice(i, 1);
          await a!.hook();
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return { store, before: (method, match, hook) => void armed.push({ method, match, hook }) };
}

async function withOrgs(store: OrgStore): Promise<{ plugin: OrganizationsPlugin; close(): Promise<void> }> {
  const plugin = organizations({ sender: senderFunc(() => undefined), store });
  const { auth } = makeApp({ plugins: [plugin] });
  return { plugin, close: () => auth.close() };
}

/**
 * Acme of owner ann, with `other` (an admin) and bob; bob leaves, and ann's promotion of bob lands
 * just before his record goes.
 */
async function bobLeavesWhilePromoted(other: string): Promise<{ h: ReturnType<typeof hooked>; t: Awaited<ReturnType<typeof withOrgs>>; s: OrganizationsPlugin['service']; orgId: string }> {
  const h = hooked(new MemoryOrgStore());
  const t = await withOrgs(h.store);
  const s = t.plugin.service;
  const org = await s.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Acme', slug: 'acme' });
  await s.provision(org.id, other, ['admin'], 'scim');
  await s.provision(org.id, 'bob', ['member'], 'scim');
  h.before(
    'removeMember',
    (a) => a[1] === 'bob',
    () => s.updateMember('acme', caller('ann'), 'bob', { roles: ['owner'] }),
  );
  await s.removeMember('acme', caller('bob'), 'bob');
  return { h, t, s, orgId: org.id };
}

/** Races between a change of the owner list and a member's removal, each forced by running one call just before a chosen store call. */
describe('the owner list under races', () => {
  it('an admin removing a member the owner promotes meanwhile is refused (judged on the stored list), and the new owner stays', async () => {
    const h = hooked(new MemoryOrgStore());
    const t = await withOrgs(h.store);
    const s = t.plugin.service;
    const org = await s.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Acme', slug: 'acme' });
    await s.provision(org.id, 'mallory', ['admin'], 'scim');
    await s.provision(org.id, 'bob', ['member'], 'scim');
    // Mallory's request reads Bob as a member; Ann makes Bob an owner before Mallory's write.
    h.before(
      'member',
      (a) => a[1] === 'bob',
      () => s.updateMember('acme', caller('ann'), 'bob', { roles: ['owner'] }),
    );
    const outcome = await s.removeMember('acme', caller('mallory'), 'bob').then(
      () => 'removed',
      (e: { status?: number; reason?: string }) => `${e.status} ${e.reason}`,
    );
    const stored = await h.store.get(org.id);
    expect(outcome).not.toBe('removed');
    expect(stored?.owners).toEqual(['ann', 'bob']);
    await t.close();
  });

  it("a promotion landing just before a leaving member's record goes leaves no owner name behind: re-added later, the member is no owner", async () => {
    const { h, t, s, orgId } = await bobLeavesWhilePromoted('mallory');
    const org = { id: orgId };
    expect((await h.store.get(org.id))?.owners).toEqual(['ann']);
    // Later the directory (or an admin's invitation as `member`) adds Bob back as a plain member.
    expect(await s.provision(org.id, 'bob', ['member'], 'scim')).toBe('added');
    const bobNow = await s.authorize('acme', 'bob', 'org:delete').then(
      (r) => r.roles,
      (e: Error) => e.message,
    );
    expect(bobNow).not.toContain('owner');
    await t.close();
  });

  it('after such a race, the last real owner deleted still leaves an heir', async () => {
    const { h, t, s, orgId } = await bobLeavesWhilePromoted('carl');
    const org = { id: orgId };
    const deleted = await s.userDeleted('ann').then(
      () => 'ok',
      (e: { reason?: string; message?: string }) => `threw ${e.reason ?? e.message}`,
    );
    const stored = await h.store.get(org.id);
    expect(deleted).toBe('ok');
    expect(stored?.owners).toContain('carl');
    await t.close();
  });

  it('an owner demoted just before her deletion of the organization is refused, and the organization stays', async () => {
    const h = hooked(new MemoryOrgStore());
    const t = await withOrgs(h.store);
    const s = t.plugin.service;
    const org = await s.create({ id: 'ann', name: 'Ann', picture: '' }, { name: 'Acme', slug: 'acme' });
    await s.provision(org.id, 'bob', ['member'], 'scim');
    await s.updateMember('acme', caller('ann'), 'bob', { roles: ['owner'] });
    h.before(
      'delete',
      (a) => a[0] === org.id,
      () => s.updateMember('acme', caller('bob'), 'ann', { roles: ['member'] }),
    );
    await expect(s.delete('acme', caller('ann'))).rejects.toMatchObject({ status: 403, reason: 'permission_required' });
    expect((await h.store.get(org.id))?.owners).toEqual(['bob']);
    // Still an owner, she could have: the same call by Bob deletes it.
    await s.delete('acme', caller('bob'));
    expect(await h.store.get(org.id)).toBeUndefined();
    await t.close();
  });
});
