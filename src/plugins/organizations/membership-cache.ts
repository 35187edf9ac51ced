import { type StateStore, AnnouncedCache, type AnnouncedMap } from '../../plugin-kit/state';
import type { OrgRecord, OrgStore } from './org-store';
import { rolesOf } from './member-writes';

/** The channel on which every change of an organization is announced (its id). */
export const ORG_CHANGED_CHANNEL = 'org-changed';
/** The most organizations whose members one process keeps. */
const CACHED_ORGS = 10_000;
/** The most members of one organization kept. */
const CACHED_MEMBERS_PER_ORG = 1_000;

/** A user's place in an organization, as the middleware checks it. */
export interface Membership {
  org: { id: string; slug: string; name: string };
  roles: readonly string[];
  teams: readonly string[];
}

/** Whom a membership is looked up for: a member (user id), or a key of the organization with the roles it was given. */
export type Principal = string | { key: string; roles: readonly string[] };

function membershipIn(org: OrgRecord | undefined, member: { roles: readonly string[]; teams: readonly string[] } | undefined, userId?: string): Membership | null {
  if (org === undefined || member === undefined) return null;
  // A user's roles: `owner` by the organization's list, then the record's; a key's as it was given.
  const roles = userId === undefined ? [...member.roles] : rolesOf(org, { userId, roles: [...member.roles] });
  return Object.freeze({
    org: Object.freeze({ id: org.id, slug: org.slug, name: org.name }),
    roles: Object.freeze(roles),
    teams: Object.freeze(member.teams.filter((t) => org.teams.some((known) => known.id === t))),
  });
}

/** The announcement of a change of one member (`<org id>/<user id>`); an organization's own change is announced by its id alone. */
const memberChange = (orgId: string, userId: string): string => `${orgId}/${userId}`;

/**
 * The per-process view of memberships for `m.org()` and `m.can()`: answers from memory while the
 * state store's subscription is live, since every change of an organization is announced there
 * (Redis pub/sub, PostgreSQL NOTIFY, in-process otherwise); without a live one, every check reads
 * the organization store. So a removal or a role change holds on the next request on every instance.
 */
export class MembershipCache {
  private readonly cache: AnnouncedCache;
  private readonly byOrg: AnnouncedMap<string, Map<string, Membership | null>>;

  /**
   * @param orgs - where memberships are read.
   * @param state - announces changes across instances.
   */
  constructor(
    private readonly orgs: OrgStore,
    state: StateStore,
  ) {
    this.cache = new AnnouncedCache(state, ORG_CHANGED_CHANNEL, (changed) => {
      // Organization ids hold no `/`: one with it names a member, whose entry alone goes.
      const slash = changed.indexOf('/');
      if (slash < 0) this.byOrg.delete(changed);
      else this.byOrg.get(changed.slice(0, slash))?.delete(changed.slice(slash + 1));
    });
    this.byOrg = this.cache.map(CACHED_ORGS);
  }

  /**
   * The membership of organization `orgId` of a user, or of one of the organization's API keys
   * (its roles, while the organization exists); `null`: none. Synchronous when memory can tell.
   */
  lookup(orgId: string, principal: Principal): Membership | null | Promise<Membership | null> {
    // A key's id is "api_key:" and the SHA-256 of the key: no user id equals one.
    const id = typeof principal === 'string' ? principal : principal.key;
    const known = this.byOrg.get(orgId)?.get(id);
    if (known !== undefined) return known;
    const mark = this.cache.mark();
    const asked = typeof principal === 'string' ? this.orgs.member(orgId, principal) : { roles: principal.roles, teams: [] };
    return Promise.all([this.orgs.get(orgId), asked]).then(([org, member]) => {
      const found = membershipIn(org, member, typeof principal === 'string' ? principal : undefined);
      if (this.cache.keep(mark)) {
        let cached = this.byOrg.get(orgId);
        if (cached === undefined || cached.size >= CACHED_MEMBERS_PER_ORG) this.byOrg.set(orgId, (cached = new Map()));
        cached.set(id, found);
      }
      return found;
    });
  }

  /** What memory knows of a membership without reading the store (`undefined`: it does not know). */
  peek(orgId: string, principal: Principal): Membership | null | undefined {
    return this.byOrg.get(orgId)?.get(typeof principal === 'string' ? principal : principal.key);
  }

  /** Announces that organization `orgId` changed (its name, slug, teams or existence), here at once and to every instance. */
  async changed(orgId: string): Promise<void> {
    await this.cache.announce(orgId);
  }

  /** Announces that member `userId` of organization `orgId` changed, here at once and to every instance. */
  async memberChanged(orgId: string, userId: string): Promise<void> {
    await this.cache.announce(memberChange(orgId, userId));
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.cache.close();
  }
}
