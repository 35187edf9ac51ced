import { BoundedMap } from '../internal/bounded-map';
import type { StateStore, Subscription } from '../state/state-store';
import type { OrgRecord, OrgStore } from './org-store';

/** The channel on which every change of an organization is announced (its id). */
export const ORG_CHANGED_CHANNEL = 'org-changed';
/** The most organizations whose members one process keeps. */
const CACHED_ORGS = 10_000;
/** The most members of one organization kept. */
const CACHED_MEMBERS_PER_ORG = 1_000;
/** How long an entry is trusted even without a message (a safety net behind pub/sub). */
const CACHE_TTL_MS = 10 * 60_000;

/** A user's place in an organization, as the middleware checks it. */
export interface Membership {
  org: { id: string; slug: string; name: string };
  roles: readonly string[];
  teams: readonly string[];
}

function membershipIn(org: OrgRecord | undefined, userId: string): Membership | null {
  const member = org?.members.find((m) => m.userId === userId);
  if (org === undefined || member === undefined) return null;
  return Object.freeze({ org: Object.freeze({ id: org.id, slug: org.slug, name: org.name }), roles: Object.freeze([...member.roles]), teams: Object.freeze([...member.teams]) });
}

/**
 * The per-process view of memberships for `m.org()` and `m.can()`: answers from memory while the
 * state store's subscription is live, since every change of an organization is announced there
 * (Redis pub/sub, PostgreSQL NOTIFY, in-process otherwise); without a live one, every check reads
 * the organization store. So a removal or a role change holds on the next request on every instance.
 */
export class MembershipCache {
  private readonly byOrg = new BoundedMap<string, Map<string, Membership | null>>(CACHED_ORGS);
  /** Counts announcements: a store read that overlapped one is not cached (it may predate it). */
  private epoch = 0;
  private readonly subscription: Subscription | undefined;

  /**
   * @param orgs - where memberships are read.
   * @param state - announces changes across instances.
   */
  constructor(
    private readonly orgs: OrgStore,
    private readonly state: StateStore,
  ) {
    this.subscription = state.subscribe?.(
      ORG_CHANGED_CHANNEL,
      (orgId) => this.forget(orgId),
      () => {
        this.epoch++;
        this.byOrg.clear();
      },
    );
  }

  private forget(orgId: string): void {
    this.epoch++;
    this.byOrg.delete(orgId);
  }

  /** `userId`'s membership of organization `orgId` (`null`: none); synchronous when memory can tell. */
  lookup(orgId: string, userId: string): Membership | null | Promise<Membership | null> {
    const live = this.subscription?.live === true;
    const members = live ? this.byOrg.get(orgId) : undefined;
    const known = members?.get(userId);
    if (known !== undefined) return known;
    const epoch = this.epoch;
    return this.orgs.get(orgId).then((org) => {
      const found = membershipIn(org, userId);
      if (live && epoch === this.epoch && this.subscription?.live === true) {
        let cached = this.byOrg.get(orgId);
        if (cached === undefined || cached.size >= CACHED_MEMBERS_PER_ORG) this.byOrg.set(orgId, (cached = new Map()), CACHE_TTL_MS);
        cached.set(userId, found);
      }
      return found;
    });
  }

  /** Announces that organization `orgId` changed, here at once and to every instance. */
  async changed(orgId: string): Promise<void> {
    this.forget(orgId);
    await this.state.publish?.(ORG_CHANGED_CHANNEL, orgId);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
