/** `authgate/admin`: admin routes (users, bans, sessions, impersonation) and the admin console as a plugin. */
export { admin, type AdminPlugin } from './plugins/admin/admin-plugin';
export type { AdminOptions } from './plugins/admin/admin-options';
export { AdminService, type AdminUserView, type AdminUserDetail, type ImpersonationStatus, type ActClaim } from './plugins/admin/admin-service';
export type { ResolvedAdminOptions } from './plugins/admin/admin-options';
export { ADMIN_SERVICE, type AdminAuthority } from './plugin-api/admin-authority';
