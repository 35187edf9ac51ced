import { configError } from '../../core/errors';
import { ORGANIZATIONS_SERVICE } from '../../plugin-api/org-keys';
import type { AuthPlugin } from '../../plugin-api/plugin';
import { openDatabase } from '../../stores/open-database';
import { DomainRepository } from './domain-repository';
import { SsoDomains } from './sso-domains';
import { checkSsoOptions, type SsoOptions } from './sso-options';
import { ssoRouteList } from './sso-routes';

/** The error codes the SSO plugin answers with (besides the core's). */
export const SSO_ERROR_CODES = ['domain_unverified', 'domain_taken'] as const;

/** The events the SSO plugin fires. */
export const SSO_EVENT_TYPES = ['sso.domain.verified', 'sso.domain.removed'] as const;

declare module '../../core/errors' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the SSO reasons join the registry
  interface AuthErrorReasons extends Record<(typeof SSO_ERROR_CODES)[number], true> {}
}

declare module '../../core/audit/auth-event' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the SSO events join the registry
  interface AuthEventTypes extends Record<(typeof SSO_EVENT_TYPES)[number], true> {}
}

/** The SSO plugin, with its domains once `createAuth` has set it up. */
export interface SsoPlugin extends AuthPlugin {
  /** The organizations' verified domains, for the app's own code; throws before `createAuth` ran. */
  readonly domains: SsoDomains;
}

/**
 * Enterprise single sign-on per organization: `createAuth({ plugins: [organizations({...}),
 * sso()] })`. This release brings verified domains: an organization's admins claim an e-mail
 * domain and prove it with a DNS TXT record (routes under `/orgs/:org/sso/domains`); a domain is
 * verified by one organization at most.
 */
export function sso(options: SsoOptions = {}): SsoPlugin {
  const checked = checkSsoOptions(options);
  let domains: SsoDomains | undefined;
  return {
    name: 'sso',
    requires: ['organizations'],
    errorCodes: SSO_ERROR_CODES,
    eventTypes: SSO_EVENT_TYPES,
    rateLimits: { ssoRoutesPerUser: { limit: 60, windowMs: 60_000 } },
    get domains(): SsoDomains {
      if (domains === undefined) throw configError('sso(): its domains exist once createAuth({ plugins: [...] }) has set the plugin up');
      return domains;
    },
    setup(ctx) {
      const orgs = ctx.service(ORGANIZATIONS_SERVICE);
      if (orgs === undefined) throw configError('sso() needs the organizations plugin');
      const repo = ctx.openStore(checked.store ?? ctx.storeUri('sso'), (uri) => new DomainRepository(openDatabase(uri, 'SSO')), 'SSO store');
      const made = new SsoDomains(repo, orgs, checked.dns ?? {}, ctx.events);
      domains = made;
      ctx.events.on('org.deleted', async (e) => void (typeof e.data.org === 'string' ? await made.orgDeleted(e.data.org) : undefined));
      return {
        routes: ssoRouteList({ domains: made, authenticator: ctx.authenticator, rateLimit: (name, id) => ctx.rateLimit(name, id) }),
        close: () => repo.close(),
      };
    },
  };
}
