import { fromMongoRecord, type Schema } from '../../plugin-kit/storage';
import type { OrgInvitation, OrgMember, OrgRecord } from './org-store';

/** Oldest first: the time as fixed-width text (an id breaks ties). */
const age = (created: number): string => String(created).padStart(16, '0');

/** A user's organizations, and an organization's invitations and members, oldest first. */
export const ofMember = (userId: string): string => `${userId}\u0000`;
export const ofOrg = (orgId: string): string => `${orgId}\u0000`;
/** An organization's members in one team, or with one role, oldest first. */
export const ofOrgPart = (orgId: string, part: string): string => `${ofOrg(orgId)}${part}\u0000`;

/** What an organization of before 2026-11-29 kept inside it: its members (moved to their own records on first use). */
export interface OrgWithMembers extends OrgRecord {
  members?: Array<Omit<OrgMember, 'orgId'>>;
  /** The instance moving them, and until when its claim holds (ms since the epoch). */
  moving?: { by: string; until: number };
}

/**
 * The organizations family: by id; by slug (unique). `member` lists the organizations that still
 * hold their members inside them, as before 2026-11-29: the store moves those out on first use.
 */
export const ORGS: Schema<OrgRecord> = {
  family: 'orgs',
  id: (o) => o.id,
  indexes: [
    { name: 'slug', values: (o) => [o.slug], unique: true },
    { name: 'member', values: (o) => ((o as OrgWithMembers).members ?? []).map((m) => `${ofMember(m.userId)}${age(o.created)}`) },
  ],
  // What the stores of before 2026-11-27 kept: table authgate_orgs (column doc), level keys org!<id>.
  legacy: { sqlTable: 'orgs', levelPrefix: 'org!', mongoCollection: 'orgs', mongoDoc: fromMongoRecord('id') },
};

/** A member's id: the organization's (`org_` and base64url, so no `/`) and the user's. */
export const memberId = (orgId: string, userId: string): string => `${orgId}/${userId}`;

/** The members family: by id (organization and user); an organization's, a user's, a team's and a role's, in the order they joined. */
export const ORG_MEMBERS: Schema<OrgMember> = {
  family: 'org_members',
  id: (m) => memberId(m.orgId, m.userId),
  indexes: [
    { name: 'org', values: (m) => [`${ofOrg(m.orgId)}${age(m.joined)}`] },
    { name: 'user', values: (m) => [`${ofMember(m.userId)}${age(m.joined)}`] },
    { name: 'team', values: (m) => m.teams.map((t) => `${ofOrgPart(m.orgId, t)}${age(m.joined)}`) },
    { name: 'role', values: (m) => m.roles.map((r) => `${ofOrgPart(m.orgId, r)}${age(m.joined)}`) },
  ],
};

/** The invitations family: by id (the token's hash); an organization's, oldest first (expired ones too, until deleted: the service judges them). */
export const ORG_INVITATIONS: Schema<OrgInvitation> = {
  family: 'org_invitations',
  id: (i) => i.id,
  indexes: [{ name: 'org', values: (i) => [`${ofOrg(i.orgId)}${age(i.created)}`] }],
  legacy: { sqlTable: 'org_invitations', levelPrefix: 'orginvite!', mongoCollection: 'orgs_invitations', mongoDoc: fromMongoRecord('id') },
};
