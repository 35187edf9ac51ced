/**
 * What the plugins of an organization's own identity systems share without importing each other:
 * its verified domains (offered by the SSO plugin), its directory of provisioned people (offered
 * by the SCIM plugin), and the event that a person left that directory.
 */

/** The name the SSO plugin gives its verified domains among the plugin services. */
export const VERIFIED_DOMAINS_SERVICE = 'verifiedDomains';
/** The name the SCIM plugin gives its directory among the plugin services. */
export const ORG_DIRECTORY_SERVICE = 'orgDirectory';

/** Which organization proved it owns an e-mail domain. */
export interface VerifiedDomains {
  /** The organization that verified `domain` (lower-case), if one did. */
  verifiedOwner(domain: string): Promise<string | undefined>;
}

/** A person an organization's directory provisioned, as a sign-in sees it. */
export interface DirectoryPerson {
  /** The authgate user id the person signs in as. */
  userId: string;
  /** `false` while the directory has deactivated the person: no sign-in through the organization. */
  active: boolean;
  /** `true` when the person is an account its holder linked to the directory (see the linking policy). */
  consented?: boolean | undefined;
}

/** The people an organization's directory provisioned (SCIM). */
export interface OrgDirectory {
  /**
   * The person of organization `orgId` an identity provider's login names: by the directory's
   * user name or external id equal to `subject`, or by `email` (which the caller passes only in a
   * domain the organization verified). `undefined` when the directory knows no such person.
   */
  match(orgId: string, person: { subject: string; email?: string | undefined }): Promise<DirectoryPerson | undefined>;
}

/**
 * The events of a directory's deprovisioning: `org.member.deprovisioned` (data `org`, `source`,
 * `reason` `'suspended'` or `'deleted'`) after the member's sessions ended and the membership
 * went; every plugin that granted the user access ends it (the keys the user made for the
 * organization, the identity provider's grants).
 */
export const DIRECTORY_EVENT_TYPES = ['org.member.deprovisioned'] as const;

declare module '../core/audit/auth-event' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the directory's event joins the registry
  interface AuthEventTypes extends Record<(typeof DIRECTORY_EVENT_TYPES)[number], true> {}
}

declare module './plugin' {
  interface PluginServices {
    /** An organization's verified e-mail domains (the SSO plugin). */
    [VERIFIED_DOMAINS_SERVICE]: VerifiedDomains;
    /** An organization's provisioned people (the SCIM plugin). */
    [ORG_DIRECTORY_SERVICE]: OrgDirectory;
  }
}
