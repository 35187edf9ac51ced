import { createHash } from 'node:crypto';
import type { Schema } from '../../plugin-kit/storage';

/** A SCIM token of an organization: what its directory (Okta, Entra ID) authenticates with. Only its hash is kept. */
export interface ScimToken {
  /** The SHA-256 of the token (base64url): a stolen store gives no token. */
  id: string;
  orgId: string;
  /** Shown to the organization's admins. */
  name: string;
  /** The token's first characters, to tell tokens apart. */
  prefix: string;
  /** ms since the epoch. */
  created: number;
  /** The admin who made it; the token ends with their power (a reset, a ban, their removal). */
  createdBy: string;
}

/** The id a token is kept under. */
export const tokenId = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** The SCIM tokens family: by hash; an organization's; those an admin made. */
export const SCIM_TOKENS: Schema<ScimToken> = {
  family: 'scim_tokens',
  id: (t) => t.id,
  indexes: [
    { name: 'org', values: (t) => [`${t.orgId}\u0000${t.id}`] },
    { name: 'author', values: (t) => [`${t.createdBy}\u0000${t.id}`] },
  ],
};
