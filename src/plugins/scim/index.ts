/** `authgate/scim`: SCIM 2.0 provisioning per organization (tokens, discovery and users). */
export { scim, SCIM_EVENT_TYPES, type ScimOptions, type ScimPlugin } from './scim-plugin';
export { ScimTokens, SCIM_PERMISSION, type ScimScope, type ScimTokenView } from './scim-tokens';
export { MAX_TOKENS_PER_ORG } from './scim-repository';
export { SCIM_BASE } from './scim-routes';
export { ScimError, SCIM_ERROR_SCHEMA, type ScimStatus, type ScimType } from './scim-errors';
export { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, MAX_RESULTS, USER_SCHEMA } from './scim-discovery';
export type { ScimToken } from './token-schema';
export { ScimUsers, MAX_SCIM_USERS, type ScimPage } from './scim-users';
export type { ScimUser, ScimUserFields, ScimEmail, EnterpriseFields } from './user-schema';
export { MAX_EMAILS } from './user-resource';
export { MAX_PATCH_OPERATIONS, PATCH_SCHEMA, type PatchOperation } from './scim-patch';
export { MAX_FILTER_LENGTH } from './scim-filter';
export { SCIM_BODY_LIMIT } from './scim-user-routes';
export { DIRECTORY_EVENT_TYPES, ORG_DIRECTORY_SERVICE, VERIFIED_DOMAINS_SERVICE, type DirectoryPerson, type OrgDirectory, type VerifiedDomains } from '../../plugin-kit/plugin-api';
export { ScimGroups } from './scim-groups';
export type { ScimGroup, ScimSettings } from './group-schema';
export { MAX_GROUP_MEMBERS, type ScimGroupFields } from './group-resource';
export { MAX_GROUP_ROLES } from './scim-settings-routes';
