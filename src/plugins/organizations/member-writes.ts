import { AuthError } from '../../plugin-kit/helpers';
import type { MembershipCache } from './membership-cache';
import type { OrgMember, OrgStore } from './org-store';
import { OWNER } from './roles';

/** 409 `last_owner`: the change would leave the organization without an owner. */
export const lastOwner = (): AuthError => new AuthError('conflict', 'an organization keeps at least one owner: make someone else owner first', { reason: 'last_owner' });

const isOwner = (member: Pick<OrgMember, 'roles'> | undefined): boolean => member?.roles.includes(OWNER) === true;

/**
 * Every write of a member record, with the one rule that spans two records: an organization keeps
 * an owner. The organization's `owners` list is the counter: a member losing `owner` is taken off
 * it first (refused when it would be empty), one gaining `owner` is put on it after its record
 * says so. A stop between the two writes leaves the list naming fewer owners than there are, never
 * more, so the rule holds; the same request again completes the change. Each write is announced.
 */
export class MemberWrites {
  /**
   * @param store - where members live.
   * @param cache - told of each change.
   */
  constructor(
    private readonly store: OrgStore,
    private readonly cache: MembershipCache,
  ) {}

  /** Adds a member (owners listed after); `false` when the user is one already. */
  async add(member: OrgMember): Promise<boolean> {
    const added = await this.store.addMember(member);
    if (added && isOwner(member)) await this.listOwner(member.orgId, member.userId);
    if (added) await this.cache.memberChanged(member.orgId, member.userId);
    return added;
  }

  /**
   * Changes a member atomically (`change` sees the stored record, may run more than once, may
   * throw; `undefined` leaves it): the member before and after, `undefined` when there is none.
   * @throws AuthError 409 `last_owner` when the change would take the organization's last owner.
   */
  async change(orgId: string, userId: string, change: (member: OrgMember) => OrgMember | undefined): Promise<{ before: OrgMember; after: OrgMember } | undefined> {
    let unlisted = false;
    for (;;) {
      let before: OrgMember | undefined;
      let mustUnlist = false;
      const after = await this.store.updateMember(orgId, userId, (current) => {
        before = structuredClone(current);
        const next = change(current);
        // Off the list before the record loses `owner`: this write waits for that.
        mustUnlist = !unlisted && isOwner(before) && next !== undefined && !isOwner(next);
        return mustUnlist ? undefined : next;
      });
      if (after === undefined || before === undefined) return undefined;
      if (mustUnlist) {
        await this.unlistOwner(orgId, userId);
        unlisted = true;
        continue;
      }
      if (isOwner(after)) await this.listOwner(orgId, userId);
      await this.cache.memberChanged(orgId, userId);
      return { before, after };
    }
  }

  /**
   * Removes a member (an owner comes off the list first): the removed member, `undefined` when there was none.
   * @throws AuthError 409 `last_owner` for the organization's last owner.
   */
  async remove(orgId: string, userId: string): Promise<OrgMember | undefined> {
    const seen = await this.store.member(orgId, userId);
    if (seen === undefined) return undefined;
    if (isOwner(seen)) await this.unlistOwner(orgId, userId);
    const removed = await this.store.removeMember(orgId, userId);
    await this.cache.memberChanged(orgId, userId);
    return removed;
  }

  private async listOwner(orgId: string, userId: string): Promise<void> {
    await this.store.update(orgId, (org) => (org.owners.includes(userId) ? undefined : { ...org, owners: [...org.owners, userId] }));
  }

  /** Takes `userId` off the list, and any name there whose record is no owner (a removal that raced a promotion). */
  private async unlistOwner(orgId: string, userId: string): Promise<void> {
    const org = await this.store.get(orgId);
    const stale = new Set<string>([userId]);
    for (const id of org?.owners ?? []) if (id !== userId && !isOwner(await this.store.member(orgId, id))) stale.add(id);
    await this.store.update(orgId, (current) => {
      const owners = current.owners.filter((id) => !stale.has(id));
      if (owners.length === 0) throw lastOwner();
      return owners.length === current.owners.length ? undefined : { ...current, owners };
    });
  }
}
