/** The plugin kit: what a plugin is and what it may ask of the core and of other plugins. */
export { ADMIN_SERVICE, type AdminAuthority } from '../plugin-api/admin-authority';
export { actThroughKey, apiKeyOf, type ApiKeyUse } from '../plugin-api/api-key-use';
export { type PluginAuthenticator, type PluginAvatars, type PluginEvents, type PluginKit, type PluginLockout, type PluginSessions, type PluginTokens, type PluginUsers } from '../plugin-api/core-api';
export { eventQuery } from '../plugin-api/event-query';
export { type AccountStanding, DIRECTORY_USER_PREFIX, takeoverRefusal } from '../plugin-api/linking-policy';
export { LOGIN_LINKS_SERVICE, type LoginLinksService } from '../plugin-api/login-links-service';
export { DIRECTORY_EVENT_TYPES, type DirectoryPerson, ORG_DIRECTORY_SERVICE, type OrgDirectory, VERIFIED_DOMAINS_SERVICE, type VerifiedDomains } from '../plugin-api/org-directory';
export { grantableBy, mayActOn, ORG_EVENT_TYPES, ORGANIZATIONS_SERVICE, type OrgAuthority, OWNER, rolesField, rolesIn, whenOrgDeleted, whenPowerLost } from '../plugin-api/org-keys';
export {
  type ActionCall,
  type ActionGuard,
  type ActionHook,
  type ActionName,
  type AuthPlugin,
  type GuardedAction,
  type PluginContext,
  type PluginContribution,
  type PluginRoute,
  type RouteMethod,
  type SignInMethod,
  type SignInPolicy,
} from '../plugin-api/plugin';
export { routeCaller } from '../plugin-api/route-caller';
export { SECOND_FACTOR_SERVICE, type SecondFactor } from '../plugin-api/second-factor';
