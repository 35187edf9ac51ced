/** `authgate/scim`: SCIM 2.0 provisioning per organization (this release: tokens and discovery). */
export { scim, SCIM_EVENT_TYPES, type ScimOptions, type ScimPlugin } from './scim-plugin';
export { ScimTokens, SCIM_PERMISSION, type ScimTokenView } from './scim-tokens';
export { MAX_TOKENS_PER_ORG } from './scim-repository';
export { SCIM_BASE } from './scim-routes';
export { ScimError, SCIM_ERROR_SCHEMA, type ScimType } from './scim-errors';
export { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, MAX_RESULTS, USER_SCHEMA } from './scim-discovery';
export type { ScimToken } from './token-schema';
