import { ADMIN_MESSAGES } from './console/console-messages';
import { type AuthPlugin, ADMIN_SERVICE } from '../../plugin-kit/plugin-api';
import { checkAdminOptions, type AdminOptions } from './admin-options';
import { adminRouteList } from './admin-routes';
import { AdminService } from './admin-service';

/** The admin plugin, with its service once `createAuth` has set it up. */
export interface AdminPlugin extends AuthPlugin {
  /** Ban, unban, list and impersonate from the app's own code; throws before `createAuth` ran. */
  readonly service: AdminService;
}

/**
 * Admin routes and the admin console: `createAuth({ plugins: [admin()] })`. Admins (`attrs.admin`,
 * or `isAdmin`) list and search users, read one in full, ban and unban (every session ends at once;
 * every login and refresh is refused with `banned` while it lasts), end sessions, and act as a user
 * for at most `impersonationMaxAge`. The console is at `<auth mount>/admin/`.
 */
export function admin(options: AdminOptions = {}): AdminPlugin {
  const checked = checkAdminOptions(options);
  let service: AdminService | undefined;
  return {
    name: 'admin',
    errorCodes: ['banned'],
    messages: ADMIN_MESSAGES,
    optional: ['organizations'],
    rateLimits: { adminRequestsPerUser: { limit: 300, windowMs: 60_000 } },
    get service(): AdminService {
      if (service === undefined) throw new Error('admin(): the service exists once createAuth({ plugins: [...] }) has set the plugin up');
      return service;
    },
    setup(ctx) {
      const adminService = new AdminService(ctx, checked);
      service = adminService;
      return {
        routes: adminRouteList({
          admin: adminService,
          authenticator: ctx.authenticator,
          rateLimit: (name, id) => ctx.rateLimit(name, id),
          peek: (req) => ctx.tokens.peek(req),
          translations: ctx.translations,
        }),
        services: { [ADMIN_SERVICE]: adminService },
      };
    },
  };
}
