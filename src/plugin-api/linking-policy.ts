import type { UserRecord } from '../core/users/user-store';

/** The prefix of the user ids an organization's identity provider makes (SSO, just in time). */
export const SSO_USER_PREFIX = 'sso_';
/** The prefix of the user ids an organization's directory makes (SCIM). */
export const DIRECTORY_USER_PREFIX = 'scim_';

/** What the linking policy weighs of an existing account. */
export interface AccountStanding {
  /** The account's record in the user directory. */
  record: UserRecord | undefined;
  /** The organizations the account belongs to. */
  orgIds: readonly string[];
  /** The account's holder linked it to the organization's directory themselves (signed in, with a fresh login, with their address). */
  consented?: boolean | undefined;
}

/**
 * Why organization `orgId`'s directory (SCIM) or identity provider (SSO) may not take over an
 * existing account (link a person to it, manage it, sign in as it, stand in for its second factor);
 * `undefined` when it may. The one linking policy of every entry path (docs/security.md, rule 1): an
 * organization's directory or IdP manages only the accounts that organization's IdP made, which
 * have no login of another kind, or accounts whose holders linked them themselves; never one with
 * an app-admin grant or another organization. Everyone else is provisioned as a person of its own,
 * however their address matches.
 */
export function takeoverRefusal(orgId: string, standing: AccountStanding): string | undefined {
  const { record } = standing;
  if (record === undefined) return 'the account is unknown';
  if (record.adminGrant === true || record.admin === true) return 'the account is an app admin';
  if (standing.orgIds.some((id) => id !== orgId)) return 'the account belongs to other organizations';
  if (standing.consented === true) return undefined;
  if (!record.id.startsWith(SSO_USER_PREFIX) || record.attrs?.sso_org !== orgId) return "the organization's identity provider did not make the account";
  if (record.logins.some((login) => login.provider !== 'sso')) return 'the account has credentials of its own';
  return undefined;
}
