import type { Schema } from '../../plugin-kit/storage';
import { inOrg } from './user-schema';

/** A SCIM group of one organization: a team of it, and (as the organization maps its name) a role. */
export interface ScimGroup {
  /** The SCIM id, random. */
  id: string;
  orgId: string;
  /** The organization's team the group is. */
  teamId: string;
  displayName: string;
  externalId?: string | undefined;
  /** The SCIM ids of its users. */
  members: string[];
  /** ms since the epoch. */
  created: number;
  modified: number;
  /** Grows with every change: the resource's `ETag`. */
  version: number;
}

/** The SCIM groups family: by SCIM id; an organization's; unique per organization by `displayName` (any case) and `externalId`. */
export const SCIM_GROUPS: Schema<ScimGroup> = {
  family: 'scim_groups',
  id: (g) => g.id,
  indexes: [
    { name: 'org', values: (g) => [inOrg(g.orgId, g.id)] },
    { name: 'display_name', values: (g) => [inOrg(g.orgId, g.displayName.toLowerCase())], unique: true },
    { name: 'external_id', values: (g) => (g.externalId === undefined ? [] : [inOrg(g.orgId, g.externalId)]), unique: true },
  ],
};

/** An organization's mapping of its directory's groups to roles (`PUT /orgs/:org/scim/settings`). */
export interface ScimSettings {
  /** The organization's id. */
  id: string;
  /** Group display name (any case) → role. Empty: the directory leaves roles to the app. */
  groupRoles: Record<string, string>;
  /** The admin who last changed it. */
  changedBy: string;
  changed: number;
}

/** The SCIM settings family: one document per organization. */
export const SCIM_SETTINGS: Schema<ScimSettings> = { family: 'scim_settings', id: (s) => s.id, indexes: [] };
