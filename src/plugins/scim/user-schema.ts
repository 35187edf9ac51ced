import type { Schema } from '../../plugin-kit/storage';

/** The enterprise extension's fields authgate keeps (RFC 7643 §4.3). */
export interface EnterpriseFields {
  employeeNumber?: string | undefined;
  costCenter?: string | undefined;
  organization?: string | undefined;
  division?: string | undefined;
  department?: string | undefined;
  /** The SCIM id (or the directory's id) of the manager. */
  manager?: string | undefined;
}

/** An e-mail address of a SCIM user. */
export interface ScimEmail {
  value: string;
  type?: string | undefined;
  primary?: boolean | undefined;
}

/** What a directory says of a person, checked and normalized. */
export interface ScimUserFields {
  userName: string;
  externalId?: string | undefined;
  active: boolean;
  name?: { formatted?: string | undefined; givenName?: string | undefined; familyName?: string | undefined; middleName?: string | undefined } | undefined;
  displayName?: string | undefined;
  nickName?: string | undefined;
  title?: string | undefined;
  preferredLanguage?: string | undefined;
  emails: ScimEmail[];
  enterprise?: EnterpriseFields | undefined;
}

/** A SCIM user of one organization: the person its directory provisioned, and the authgate user it is. */
export interface ScimUser extends ScimUserFields {
  /** The SCIM id (`id` of the resource), random. */
  id: string;
  orgId: string;
  /** The authgate user id the person signs in as; a member of the organization while `active`. */
  userId: string;
  /**
   * `true` when `userId` is an account of its own that its holder linked to this person (signed in,
   * with a fresh login, with the person's address): the directory manages its membership and the
   * organization's IdP may sign it in, but never stands in for its second factor.
   */
  consented?: boolean | undefined;
  /** ms since the epoch. */
  created: number;
  modified: number;
  /** Grows with every change: the resource's `ETag` (`W/"<version>"`). */
  version: number;
}

/** An index value within one organization. */
export const inOrg = (orgId: string, value: string): string => `${orgId}\u0000${value}`;

/** The SCIM users family: by SCIM id; an organization's by id; unique per organization by `userName` (any case), `externalId`, and user id. */
export const SCIM_USERS: Schema<ScimUser> = {
  family: 'scim_users',
  id: (u) => u.id,
  indexes: [
    { name: 'org', values: (u) => [inOrg(u.orgId, u.id)] },
    { name: 'user_name', values: (u) => [inOrg(u.orgId, u.userName.toLowerCase())], unique: true },
    { name: 'external_id', values: (u) => (u.externalId === undefined ? [] : [inOrg(u.orgId, u.externalId)]), unique: true },
    { name: 'user', values: (u) => [inOrg(u.orgId, u.userId)], unique: true },
  ],
};
