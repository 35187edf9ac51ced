import { AuthError } from '../base/errors';

/** The name the organizations plugin gives its service among the plugin services. */
export const ORGANIZATIONS_SERVICE = 'organizations';

/** The role that holds every permission of an organization; an organization always has at least one. */
export const OWNER = 'owner';

/**
 * What other plugins ask of the organizations plugin (an organization's API keys, the admin
 * console), without importing it.
 */
export interface OrgAuthority {
  /** The organization `ref` (id or slug) and the caller's roles there, when `userId` holds `permission` in it; a 403 or 404 AuthError otherwise. */
  authorize(ref: string, userId: string, permission: string): Promise<{ org: { id: string; slug: string; name: string }; roles: readonly string[] }>;
  /** Refuses (400, 403) roles that do not exist or are above `mine`. */
  checkGrantable(mine: readonly string[], roles: readonly string[]): void;
  /** The membership a key of the organization has (its roles, as the organization now defines them); `null` when the organization is gone. */
  keyMembership(orgId: string, key: { id: string; roles: readonly string[] }): object | null | Promise<object | null>;
  /** {@link OrgAuthority.keyMembership} from memory only: `undefined` when memory cannot tell (the hot path reads no store). */
  keyMembershipNow(orgId: string, key: { id: string; roles: readonly string[] }): object | null | undefined;
  /** The ids of the user's organizations. */
  idsOf(userId: string): Promise<string[]>;
  /** The organization `ref` (id or slug) as anyone may name it (SSO discovery); `undefined` when there is none. */
  lookup(ref: string): Promise<{ id: string; slug: string; name: string } | undefined>;
  /**
   * The organization's directory says `userId` is a member with `roles` (an SSO login, a SCIM
   * push): adds the membership, or sets the roles of a member; an owner keeps being one. Fires
   * `org.member.added` or `org.member.role_changed` with `actor` (a `system` actor naming the
   * source). 404 when the organization is gone, 409 `limit_reached` when it is full. With
   * `keepRoles`, a member keeps the roles it has (the directory says nothing of roles).
   */
  provision(orgId: string, userId: string, roles: readonly string[], source: string, options?: { keepRoles?: boolean }): Promise<'added' | 'changed' | 'unchanged'>;
  /**
   * The organization's directory says `userId` is no member any more (a SCIM deactivation or
   * deletion): removes the membership and the invitations the member sent, and fires
   * `org.member.removed` with a `system` actor naming the source. The last owner stays a member
   * (`'kept_owner'`): an organization is never left without one. `'absent'` when it was none.
   */
  deprovision(orgId: string, userId: string, source: string): Promise<'removed' | 'kept_owner' | 'absent'>;
  /**
   * The organization's directory has a group: makes its team (`teamId` undefined, or a team the
   * app deleted since) or renames it; the team's id. 404 when the organization is gone, 409
   * `limit_reached` past `maxTeams`.
   */
  directoryTeam(orgId: string, teamId: string | undefined, name: string): Promise<string>;
  /** The directory's group is gone: its team goes (members stay in the organization). */
  removeDirectoryTeam(orgId: string, teamId: string): Promise<void>;
  /**
   * Puts a member in the directory's teams `wanted` (of the teams the directory manages,
   * `managed`; the member's other teams stay), and, when given, gives it `roles` (an owner keeps
   * being one). Fires `org.member.role_changed` when the roles changed. Nothing for a non-member.
   */
  placeMember(orgId: string, userId: string, placement: { managed: readonly string[]; wanted: readonly string[]; roles?: readonly string[] | undefined }, source: string): Promise<void>;
  /** The user's organizations, with the user's roles there (the admin console shows them). */
  mine(userId: string): Promise<Array<{ id: string; name: string; slug: string; roles: string[] }>>;
}

/**
 * Of `roles`, those a member holding `makerRoles` could grant in the app: what a directory's group
 * map or an IdP's role map may give is capped by the power its maker has now (one role hierarchy,
 * docs/security.md rule 2), so a demoted admin's connection grants no more than member.
 */
export function grantableBy(orgs: Pick<OrgAuthority, 'checkGrantable'>, makerRoles: readonly string[], roles: readonly string[]): string[] {
  return roles.filter((role) => {
    try {
      orgs.checkGrantable(makerRoles, [role]);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Whether `makerId` could act on `targetId` in organization `orgId` in the app: every role the
 * target holds there is one the maker could grant (an admin never acts on an owner). A directory's
 * token or an IdP's connection acts on a member only when its maker could (one role hierarchy).
 * `true` for a target that is no member.
 */
export async function mayActOn(orgs: Pick<OrgAuthority, 'mine' | 'checkGrantable'>, orgId: string, makerId: string, targetId: string): Promise<boolean> {
  const [target, maker] = await Promise.all([rolesIn(orgs, orgId, targetId), rolesIn(orgs, orgId, makerId)]);
  return target.length === 0 || grantableBy(orgs, maker, target).length === target.length;
}

/** The roles `userId` holds in organization `orgId` (none when no member). */
export async function rolesIn(orgs: Pick<OrgAuthority, 'mine'>, orgId: string, userId: string): Promise<string[]> {
  return (await orgs.mine(userId)).find((o) => o.id === orgId)?.roles ?? [];
}

/**
 * Calls `end` when a member loses `permission` in an organization: banned (everywhere: `orgId`
 * undefined), removed from it, or demoted to roles without it. What only that power could make (a
 * SCIM token, an SSO connection) ends with it: a duty named `duty` (see `retryAs`), run again
 * until it succeeds.
 */
export function whenPowerLost(
  events: {
    on(
      type: 'user.banned' | 'org.member.removed' | 'org.member.role_changed',
      handler: (e: { userId?: string | undefined; data: Record<string, unknown> }) => Promise<void>,
      options: { retryAs: string },
    ): unknown;
  },
  orgs: Pick<OrgAuthority, 'authorize'>,
  permission: string,
  duty: string,
  end: (userId: string, reason: 'banned' | 'removed' | 'demoted', orgId: string | undefined) => Promise<unknown>,
): void {
  events.on('user.banned', async (e) => void (e.userId !== undefined ? await end(e.userId, 'banned', undefined) : undefined), { retryAs: duty });
  events.on(
    'org.member.removed',
    async (e) => {
      if (e.userId !== undefined && typeof e.data.org === 'string') await end(e.userId, 'removed', e.data.org);
    },
    { retryAs: duty },
  );
  events.on(
    'org.member.role_changed',
    async (e) => {
      if (e.userId === undefined || typeof e.data.org !== 'string') return;
      const still = await orgs.authorize(e.data.org, e.userId, permission).then(
        () => true,
        () => false,
      );
      if (!still) await end(e.userId, 'demoted', e.data.org);
    },
    { retryAs: duty },
  );
}

/**
 * Runs `cleanups` in order when an organization is deleted (what was made for it goes with it): a
 * duty named `duty` (see `retryAs`), run again until it succeeds, so each cleanup must be safe to repeat.
 */
export function whenOrgDeleted(
  events: { on(type: 'org.deleted', handler: (e: { data: Record<string, unknown> }) => Promise<void>, options: { retryAs: string }): unknown },
  duty: string,
  ...cleanups: Array<(orgId: string) => Promise<unknown>>
): void {
  events.on(
    'org.deleted',
    async (e) => {
      if (typeof e.data.org !== 'string') return;
      for (const cleanup of cleanups) await cleanup(e.data.org);
    },
    { retryAs: duty },
  );
}

/** The events the organizations plugin fires (other plugins follow them: a deleted organization's API keys go). */
export const ORG_EVENT_TYPES = ['org.member.added', 'org.member.removed', 'org.member.role_changed', 'org.deleted'] as const;

declare module '../core/audit/auth-event' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the organizations' event types join the registry
  interface AuthEventTypes extends Record<(typeof ORG_EVENT_TYPES)[number], true> {}
}

declare module './plugin' {
  interface PluginServices {
    /** What the organizations plugin answers other plugins. */
    [ORGANIZATIONS_SERVICE]: OrgAuthority;
  }
}

/** `roles` (a list) or `role` (one) of a request body; at least one, at most 10, each a short name. */
export function rolesField(body: Record<string, unknown>, fallback?: string[]): string[] | undefined {
  const raw = body.roles !== undefined ? body.roles : body.role !== undefined ? [body.role] : undefined;
  if (raw === undefined) return fallback;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 10 || raw.some((r) => typeof r !== 'string' || r.length === 0 || r.length > 32)) {
    throw new AuthError('bad_request', 'role must be a role name, or roles a list of 1 to 10 role names');
  }
  return [...new Set(raw as string[])];
}
