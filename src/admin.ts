/** `authgate/admin`: admin routes (users, bans, sessions, impersonation) and the admin console as a plugin. */
export { admin, type AdminPlugin } from './admin/admin-plugin';
export type { AdminOptions } from './admin/admin-options';
export { AdminService, type AdminUserView, type AdminUserDetail, type ImpersonationStatus } from './admin/admin-service';
