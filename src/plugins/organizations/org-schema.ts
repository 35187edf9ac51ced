import { fromMongoRecord, type Schema } from '../../core/storage/collection';
import { memberIds } from './org-records';
import type { OrgInvitation, OrgRecord } from './org-store';

/** Oldest first: the time as fixed-width text (an id breaks ties). */
const age = (created: number): string => String(created).padStart(16, '0');

/** A user's organizations, and an organization's invitations, oldest first. */
export const ofMember = (userId: string): string => `${userId}\u0000`;
export const ofOrg = (orgId: string): string => `${orgId}\u0000`;

/** The organizations family: by id; by slug (unique); by member, oldest first. */
export const ORGS: Schema<OrgRecord> = {
  family: 'orgs',
  id: (o) => o.id,
  indexes: [
    { name: 'slug', values: (o) => [o.slug], unique: true },
    { name: 'member', values: (o) => memberIds(o).map((userId) => `${ofMember(userId)}${age(o.created)}`) },
  ],
  // What the stores of before 2026-11-27 kept: table authgate_orgs (column doc), level keys org!<id>.
  legacy: { sqlTable: 'orgs', levelPrefix: 'org!', mongoCollection: 'orgs', mongoDoc: fromMongoRecord('id') },
};

/** The invitations family: by id (the token's hash); an organization's, oldest first (expired ones too, until deleted: the service judges them). */
export const ORG_INVITATIONS: Schema<OrgInvitation> = {
  family: 'org_invitations',
  id: (i) => i.id,
  indexes: [{ name: 'org', values: (i) => [`${ofOrg(i.orgId)}${age(i.created)}`] }],
  legacy: { sqlTable: 'org_invitations', levelPrefix: 'orginvite!', mongoCollection: 'orgs_invitations', mongoDoc: fromMongoRecord('id') },
};
