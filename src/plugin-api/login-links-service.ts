import type { LoginLinks } from '../providers/login-links';

/** The name other plugins set the links by (`context.service('loginLinks')`). */
export const LOGIN_LINKS_SERVICE = 'loginLinks';

/** What the linked-logins plugin offers other plugins: where logins are linked. */
export interface LoginLinksService {
  use(links: LoginLinks): void;
}

declare module './plugin' {
  interface PluginServices {
    /** Where the linked-logins plugin keeps links (the accounts plugin gives its own). */
    [LOGIN_LINKS_SERVICE]: LoginLinksService;
  }
}
