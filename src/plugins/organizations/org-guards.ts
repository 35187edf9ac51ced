import type { IncomingMessage } from 'node:http';
import { apiKeyOf } from '../../plugin-kit/plugin-api';
import { AuthError, configError } from '../../plugin-kit/helpers';
import { requestSlot } from '../../plugin-kit/http';
import type { GuardFactory, RequestCheck, Claims } from '../../plugin-kit/sessions';
import type { Membership, MembershipCache } from './membership-cache';
import { ACTIVE_ORG_CLAIM } from './org-records';
import type { RoleBook } from './roles';

/** What `orgOf(req)` gives behind `m.org()` or `m.can()`: the active organization and the member's place in it. */
export interface OrgContext {
  /** The organization's id, slug and name. */
  org: Membership['org'];
  /** The member's roles there. */
  roles: readonly string[];
  /** The member's teams there (ids). */
  teams: readonly string[];
  /** Whether the member's roles hold `permission`. */
  can(permission: string): boolean;
}

/** The membership a request passed with, and the roles that judge its permissions. */
interface Passed {
  membership: Membership;
  roles: RoleBook;
}

const passed = requestSlot<Passed>('request-org-v2');

/**
 * The active organization of a request that passed `m.org()` or `m.can()`, with the member's
 * roles, teams and permissions. Throws on a wiring bug: the route is not behind either.
 */
export function orgOf(req: IncomingMessage): OrgContext {
  const found = passed.get(req);
  if (found === undefined) throw configError('orgOf(): the route is not behind m.org() or m.can()');
  const { membership, roles } = found;
  return { org: membership.org, roles: membership.roles, teams: membership.teams, can: (p) => roles.allows(membership.roles, p) };
}

const refusal = (message: string, reason: 'org_required' | 'not_a_member' | 'role_required' | 'permission_required'): AuthError => new AuthError('forbidden', message, { reason });

/**
 * `m.org(...roles)` and `m.can(...permissions)` on the membership cache; `authMount()` is where the
 * auth router is mounted (`/auth`), for the refusal that names the route to call.
 */
export function orgGuards(cache: MembershipCache, roles: RoleBook, authMount: () => string): Record<'org' | 'can', GuardFactory> {
  // Memberships are cached: the pair is made once per membership, not per request.
  const pairs = new WeakMap<Membership, Passed>();
  const guard = (allow: (membership: Membership) => AuthError | undefined): RequestCheck => {
    const decide = (req: IncomingMessage, membership: Membership | null): AuthError | undefined => {
      if (membership === null) return refusal('you are not a member of the active organization', 'not_a_member');
      const refused = allow(membership);
      if (refused !== undefined) return refused;
      let pair = pairs.get(membership);
      if (pair === undefined) pairs.set(membership, (pair = { membership, roles }));
      passed.set(req, pair);
      return undefined;
    };
    return (req, user, claims: Readonly<Claims> | undefined) => {
      // A key of an organization acts in that organization, with the roles it was given.
      const key = claims === undefined ? apiKeyOf(req) : undefined;
      if (key !== undefined && key.org === undefined) return refusal('a personal API key never acts in an organization: use an API key of the organization', 'org_required');
      const orgId = key?.org?.id ?? claims?.[ACTIVE_ORG_CLAIM];
      if (typeof orgId !== 'string' || orgId === '') return refusal(`no active organization: POST ${authMount()}/orgs/<org>/activate first`, 'org_required');
      const membership = cache.lookup(orgId, key?.org ? { key: key.id, roles: key.org.roles } : user.id);
      return membership instanceof Promise ? membership.then((m) => decide(req, m)) : decide(req, membership);
    };
  };
  return {
    org(...wanted: string[]): RequestCheck {
      const unknown = wanted.find((r) => !roles.has(r));
      if (unknown !== undefined) throw configError(`m.org(): no role ${JSON.stringify(unknown)}; roles are ${roles.names().join(', ')}`);
      if (wanted.length === 0) return guard(() => undefined);
      return guard((m) => (m.roles.some((r) => wanted.includes(r)) ? undefined : refusal(`this needs the role ${wanted.join(' or ')} in the organization`, 'role_required')));
    },
    can(...permissions: string[]): RequestCheck {
      if (permissions.length === 0 || permissions.some((p) => typeof p !== 'string' || p === '')) throw configError('m.can() needs at least one permission name');
      return guard((m) =>
        permissions.every((p) => roles.allows(m.roles, p)) ? undefined : refusal(`this needs the permission ${permissions.join(' and ')} in the organization`, 'permission_required'),
      );
    },
  };
}
