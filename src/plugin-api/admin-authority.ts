import type { Claims } from '../core/token/claims';
import type { User } from '../core/token/user';

/** The name the admin plugin gives its service among the plugin services. */
export const ADMIN_SERVICE = 'admin';

/** What other plugins ask of the admin plugin (the identity provider's client registration). */
export interface AdminAuthority {
  /** Whether the user (with these claims, when known) is an admin. */
  isAdmin(user: User, claims?: Claims): boolean;
}

declare module './plugin' {
  interface PluginServices {
    /** The admin plugin's judgement of who is an admin. */
    [ADMIN_SERVICE]: AdminAuthority;
  }
}
