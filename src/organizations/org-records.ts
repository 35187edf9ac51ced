/** The claim naming the organization a session acts in (`POST /orgs/:org/activate`). */
export const ACTIVE_ORG_CLAIM = 'org';

import type { OrgRecord } from './org-store';

/** The ids of an organization's members. */
export function memberIds(org: OrgRecord): string[] {
  return org.members.map((m) => m.userId);
}

/** Oldest first, then by id: the order stores list organizations and invitations in. */
export function byAge(a: { created: number; id: string }, b: { created: number; id: string }): number {
  return a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
