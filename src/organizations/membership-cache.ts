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

/** Whom a membership is looked up for: a member (user id), or a key of the organization with the roles it was given. */
export type Principal = string | { key: string; roles: readonly string[] };

function membershipIn(org: OrgRecord | undefined, principal: Principal): Membership | null {
  if (org === undefined) return null;
  const member = typeof principal === 'string' ? org.members.find((m) => m.userId === principal) : { roles: principal.roles, teams: [] };
  if (member === undefined) return null;
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

  /**
   * The membership of organization `orgId` of a user, or of one of the organization's API keys
   * (its roles, while the organization exists); `null`: none. Synchronous when memory can tell.
   */
  lookup(orgId: string, principal: Principal): Membership | null | Promise<Membership | null> {
    const live = this.subscription?.live === true;
    // A key's id is "api_key:" and the SHA-256 of the key: no user id equals one.
    const id = typeof principal === 'string' ? principal : principal.key;
    const members = live ? this.byOrg.get(orgId) : undefined;
    const known = members?.get(id);
    if (known !== undefined) return known;
    const epoch = this.epoch;
    return this.orgs.get(orgId).then((org) => {
      const found = membershipIn(org, principal);
      if (live && epoch === this.epoch && this.subscription?.live === true) {
        let cached = this.byOrg.get(orgId);
        if (cached === undefined || cached.size >= CACHED_MEMBERS_PER_ORG) this.byOrg.set(orgId, (cached = new Map()), CACHE_TTL_MS);
        cached.set(id, found);
      }
      return found;
    });
  }

  /** What memory knows of a membership without reading the store (`undefined`: it does not know). */
  peek(orgId: string, principal: Principal): Membership | null | undefined {
    if (this.subscription?.live !== true) return undefined;
    return this.byOrg.get(orgId)?.get(typeof principal === 'string' ? principal : principal.key);
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
