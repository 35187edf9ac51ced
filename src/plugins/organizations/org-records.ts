/** The claim naming the organization a session acts in (`POST /orgs/:org/activate`). */
export const ACTIVE_ORG_CLAIM = 'org';

import type { OrgRecord } from './org-store';

/** The ids of an organization's members. */
export function memberIds(org: OrgRecord): string[] {
  return org.members.map((m) => m.userId);
}
