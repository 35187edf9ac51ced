/** `authgate/organizations`: organizations, members, roles, invitations and teams as a plugin. */
export { organizations, ORG_ERROR_CODES, type OrganizationsPlugin } from './plugins/organizations/organizations-plugin';
export { ORG_EVENT_TYPES } from './plugin-api/org-keys';
export type { OrganizationOptions, ResolvedOrganizationOptions } from './plugins/organizations/org-options';
export { DEFAULT_INVITATION_TEMPLATE } from './plugins/organizations/org-options';
export { orgOf, type OrgContext } from './plugins/organizations/org-guards';
export { OrgService, type OrgView, type MemberView, type OrgCaller, type InvitationPreview } from './plugins/organizations/org-service';
export { ORG_PERMISSIONS, OWNER, RoleBook, type OrgPermission } from './plugins/organizations/roles';
export { ACTIVE_ORG_CLAIM } from './plugins/organizations/org-records';
export { createOrgStore, ORG_STORE_SCHEMES } from './plugins/organizations/create-org-store';
export { MemoryOrgStore } from './plugins/organizations/stores/memory-org-store';
export { SlugTakenError, type OrgStore, type OrgRecord, type OrgMember, type OrgTeam, type OrgInvitation, type MemberPage, type MemberQuery } from './plugins/organizations/org-store';
export type { Membership, MembershipCache, Principal } from './plugins/organizations/membership-cache';
export { ORGANIZATIONS_SERVICE, type OrgAuthority } from './plugin-api/org-keys';
