import { configError } from '../../plugin-kit/helpers';
import { OWNER } from '../../plugin-kit/plugin-api';

/** The permissions the organization routes check; an app's roles may hold its own besides these. */
export const ORG_PERMISSIONS = ['org:update', 'org:delete', 'member:update', 'member:remove', 'invitation:create', 'invitation:cancel', 'team:manage', 'api-key:manage'] as const;

/** One of {@link ORG_PERMISSIONS}. */
export type OrgPermission = (typeof ORG_PERMISSIONS)[number];

export { OWNER };

const BUILT_IN: Readonly<Record<string, readonly string[]>> = {
  admin: ORG_PERMISSIONS.filter((p) => p !== 'org:delete'),
  member: [],
};

const ROLE_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const PERMISSION = /^[A-Za-z0-9_.:-]{1,64}$/;
const isOrgPermission = (p: string): boolean => (ORG_PERMISSIONS as readonly string[]).includes(p);

/**
 * The roles of the organizations and what each may do: `owner` (everything), `admin` (all but
 * deleting the organization), `member` (nothing but reading), and the app's own
 * (`roles: { billing: ['invoice:read'] }`; naming `admin` or `member` there adds permissions to them).
 */
export class RoleBook {
  private readonly permissions = new Map<string, ReadonlySet<string>>();

  /** @param custom - the app's roles and their permissions. */
  constructor(custom: Readonly<Record<string, readonly string[]>> = {}) {
    for (const [role, perms] of Object.entries(BUILT_IN)) this.permissions.set(role, new Set(perms));
    for (const [role, perms] of Object.entries(custom)) {
      if (role === OWNER) throw configError('organizations: the owner role holds every permission; it cannot be redefined');
      if (!ROLE_NAME.test(role)) throw configError(`organizations: role name ${JSON.stringify(role)} must be lower-case letters, digits, - or _ (at most 32)`);
      if (!Array.isArray(perms) || perms.some((p) => typeof p !== 'string' || !PERMISSION.test(p))) {
        throw configError(`organizations: roles.${role} must be a list of permission names (letters, digits, : . _ -)`);
      }
      this.permissions.set(role, new Set([...(this.permissions.get(role) ?? []), ...perms]));
    }
  }

  /** Whether `role` is defined. */
  has(role: string): boolean {
    return role === OWNER || this.permissions.has(role);
  }

  /** Every role name, `owner` first. */
  names(): string[] {
    return [OWNER, ...this.permissions.keys()];
  }

  /** Whether holding `roles` gives `permission`. */
  allows(roles: readonly string[], permission: string): boolean {
    return roles.some((r) => r === OWNER || this.permissions.get(r)?.has(permission) === true);
  }

  /** The permissions `roles` give (`['*']` for an owner). */
  permissionsOf(roles: readonly string[]): string[] {
    if (roles.includes(OWNER)) return ['*'];
    return [...new Set(roles.flatMap((r) => [...(this.permissions.get(r) ?? [])]))].sort();
  }

  /** Whether `roles` hold any organization power (managing members, invitations, teams, the organization). */
  givesOrgPowers(roles: readonly string[]): boolean {
    return ORG_PERMISSIONS.some((p) => this.allows(roles, p));
  }

  /**
   * Whether a member holding `mine` may give `roles` to someone, or change a member who holds
   * them: only an owner hands out or takes away `owner`, and nobody grants organization powers
   * (managing members, invitations, teams, the organization) they do not hold themselves. The
   * app's own permissions are not organization powers: an admin may grant `billing`.
   */
  mayGrant(mine: readonly string[], roles: readonly string[]): boolean {
    if (mine.includes(OWNER)) return true;
    if (roles.includes(OWNER)) return false;
    return roles.every((role) => [...(this.permissions.get(role) ?? [])].every((p) => !isOrgPermission(p) || this.allows(mine, p)));
  }
}
