import { AuthError } from '../../plugin-kit/helpers';
import type { MembershipCache } from './membership-cache';
import type { OrgMember, OrgRecord, OrgStore } from './org-store';
import { OWNER } from './roles';

/** 409 `last_owner`: the change would leave the organization without an owner. */
export const lastOwner = (): AuthError => new AuthError('conflict', 'an organization keeps at least one owner: make someone else owner first', { reason: 'last_owner' });

/** A member's roles as they hold them: `owner` when the organization names them an owner, then their record's roles (`member` when it has none). */
export function rolesOf(org: Pick<OrgRecord, 'owners'>, member: Pick<OrgMember, 'userId' | 'roles'>): string[] {
  const own = member.roles.filter((r) => r !== OWNER);
  return org.owners.includes(member.userId) ? [OWNER, ...own] : own.length > 0 ? own : ['member'];
}

/** A member record's roles: what it holds besides `owner` (which the organization keeps). */
export const recordRoles = (roles: readonly string[]): string[] => roles.filter((r) => r !== OWNER);

/**
 * Every write of a member. Who owns an organization is the organization's own `owners` list, and
 * only that: giving or taking `owner` is one atomic update of it, where the last-owner rule (and
 * the caller's own ownership, for the caller's check) is judged on what is stored. A member's
 * record holds the other roles and the teams; its writes never touch the organization. Each write
 * is announced.
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

  /** Adds a member (its record holds no `owner`); `false` when the user is one already. */
  async add(member: OrgMember): Promise<boolean> {
    // A name left on the owner list by a removal that raced a promotion gives a new member nothing.
    if ((await this.store.member(member.orgId, member.userId)) === undefined) await this.dropStaleOwner(member.orgId, member.userId);
    const added = await this.store.addMember({ ...member, roles: recordRoles(member.roles) });
    if (added) await this.cache.memberChanged(member.orgId, member.userId);
    return added;
  }

  /**
   * Changes a member's record atomically (`change` sees the stored record, may run more than once,
   * may throw; `undefined` leaves it; `owner` in what it returns is dropped): the record before and
   * after, `undefined` when there is none.
   */
  async change(orgId: string, userId: string, change: (member: OrgMember) => OrgMember | undefined): Promise<{ before: OrgMember; after: OrgMember } | undefined> {
    let before: OrgMember | undefined;
    const after = await this.store.updateMember(orgId, userId, (current) => {
      before = structuredClone(current);
      const next = change(current);
      return next === undefined ? undefined : { ...next, roles: recordRoles(next.roles) };
    });
    if (after === undefined || before === undefined) return undefined;
    await this.cache.memberChanged(orgId, userId);
    return { before, after };
  }

  /**
   * Gives (`true`) or takes (`false`) `owner`, in one atomic update of the organization: `allowed`
   * judges the stored owner list first (the caller's own ownership, say) and may throw; taking the
   * last owner throws 409 `last_owner`. Whether anything changed.
   */
  async setOwner(orgId: string, userId: string, owner: boolean, allowed: (owners: readonly string[]) => void = () => undefined): Promise<boolean> {
    // Names on the list, other than `userId`, that name no member (a removal that raced a promotion): the last-owner rule does not count them.
    const stale = new Set<string>();
    if (!owner) {
      // Taking owner from someone who is none writes nothing, and locks nothing: a member's removal stays a member's write.
      const seen = await this.store.get(orgId);
      if (seen === undefined) throw new AuthError('not_found', 'organization not found');
      if (!seen.owners.includes(userId)) {
        allowed(seen.owners);
        return false;
      }
      const present = await this.ownersBesides(seen, userId);
      for (const id of seen.owners) if (id !== userId && !present.includes(id)) stale.add(id);
    }
    let changed = false;
    const saved = await this.store.update(orgId, (org) => {
      allowed(org.owners);
      changed = false;
      if (owner) {
        if (org.owners.includes(userId)) return undefined;
        changed = true;
        return { ...org, owners: [...org.owners, userId] };
      }
      if (!org.owners.includes(userId)) return undefined;
      const owners = org.owners.filter((id) => id !== userId && !stale.has(id));
      if (owners.length === 0) throw lastOwner();
      changed = org.owners.includes(userId);
      return owners.length === org.owners.length ? undefined : { ...org, owners };
    });
    if (saved === undefined) throw new AuthError('not_found', 'organization not found');
    if (changed) await this.cache.changed(orgId);
    // A member removed while they were made owner: the name is taken off again (it gives nothing: a name without a record is no member).
    if (owner && changed && (await this.store.member(orgId, userId)) === undefined) await this.setOwner(orgId, userId, false).catch(() => undefined);
    return changed;
  }

  /**
   * Removes a member: off the owner list first (refused for the last owner), then the record. The
   * removed record, `undefined` when there was none.
   * @throws AuthError 409 `last_owner` for the organization's last owner.
   */
  async remove(orgId: string, userId: string, allowed?: (owners: readonly string[]) => void): Promise<OrgMember | undefined> {
    await this.setOwner(orgId, userId, false, allowed);
    const removed = await this.store.removeMember(orgId, userId);
    await this.cache.memberChanged(orgId, userId);
    // A promotion that landed between the two writes leaves a name without a member: taken off again.
    await this.dropStaleOwner(orgId, userId);
    return removed;
  }

  /** Takes `userId` off the owner list when no member record has that id (never refused: a name without a member owns nothing). */
  private async dropStaleOwner(orgId: string, userId: string): Promise<void> {
    const org = await this.store.get(orgId);
    if (org?.owners.includes(userId) !== true) return;
    const changed = await this.store.update(orgId, (current) => (current.owners.includes(userId) ? { ...current, owners: current.owners.filter((id) => id !== userId) } : undefined));
    if (changed !== undefined) await this.cache.changed(orgId);
  }

  /** The owners of `orgId` that are members (a name left by a race is none), other than `except`. */
  async ownersBesides(org: OrgRecord, except: string): Promise<string[]> {
    const found: string[] = [];
    for (const id of org.owners) if (id !== except && (await this.store.member(org.id, id)) !== undefined) found.push(id);
    return found;
  }
}
