import type { Schema } from '../../plugin-kit/storage';

/** An organization's claim of an e-mail domain, and its proof once DNS showed it. */
export interface DomainClaim {
  /** `<org id>:<domain>`. */
  id: string;
  orgId: string;
  /** Lower case, in its ASCII (punycode) form. */
  domain: string;
  /** The value the TXT record must hold (random, shown to the organization's admins). */
  token: string;
  /** ms since the epoch. */
  created: number;
  /** The user who claimed it. */
  createdBy: string;
  /** When DNS showed the record (ms); absent while pending. */
  verified?: number | undefined;
  /** Its addresses sign in only through the organization's connections (password, links and sign-up refused). */
  enforce?: boolean | undefined;
}

/** The id of an organization's claim of `domain`. */
export const claimId = (orgId: string, domain: string): string => `${orgId}:${domain}`;

/**
 * The domain claims family: by id; an organization's, by domain; the verified ones by domain,
 * unique, so one organization at most holds a domain verified (pending claims are many).
 */
export const SSO_DOMAINS: Schema<DomainClaim> = {
  family: 'sso_domains',
  id: (c) => c.id,
  indexes: [
    { name: 'org', values: (c) => [`${c.orgId}\u0000${c.domain}`] },
    { name: 'verified', values: (c) => (c.verified === undefined ? [] : [c.domain]), unique: true },
  ],
};
