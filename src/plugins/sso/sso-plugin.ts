import { createHmac } from 'node:crypto';
import { mergeMessages, AuthError, configError, SecretBox, missingPackages, logTo } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';
import { ORG_DIRECTORY_SERVICE, VERIFIED_DOMAINS_SERVICE, ORGANIZATIONS_SERVICE, whenOrgDeleted, whenPowerLost, ADMIN_SERVICE, type AuthPlugin, type ActionHook } from '../../plugin-kit/plugin-api';
import { openDatabase } from '../../plugin-kit/storage';
import { SSO_SETUP_MESSAGES } from './setup/setup-messages';
import { SSO_MESSAGES } from './sso-messages';
import type { Request, RequestHandler } from 'express';
import { domainOfAddress } from './dns-proof';
import { adminSsoRoutes } from './admin-sso-routes';
import { SsoRepository } from './sso-repository';
import { SSO_PERMISSION, SsoDomains } from './sso-domains';
import { SsoConnections } from './sso-connections';
import { SSO_LOGIN_LIMIT, SSO_PROVIDER, SsoProvider } from './sso-provider';
import { SAML_PACKAGES } from './saml-xml';
import { checkSsoOptions, type SsoOptions } from './sso-options';
import { ssoRouteList } from './sso-routes';

/** The error codes the SSO plugin answers with (besides the core's). */
export const SSO_ERROR_CODES = ['domain_unverified', 'domain_taken', 'saml_invalid', 'sso_required', 'sso_not_found', 'connection_disabled', 'member_suspended'] as const;

/** The events the SSO plugin fires. */
export const SSO_EVENT_TYPES = [
  'sso.domain.verified',
  'sso.domain.removed',
  'sso.connection.created',
  'sso.connection.updated',
  'sso.connection.deleted',
  'sso.domain.enforced',
  'sso.connection.disabled',
] as const;

declare module '../../base/errors' {
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
  /** The organizations' connections, for the app's own code; throws before `createAuth` ran. */
  readonly connections: SsoConnections;
}

/**
 * Enterprise single sign-on per organization: `createAuth({ plugins: [organizations({...}),
 * sso({ key })] })`. An organization's admins verify e-mail domains by DNS (`/orgs/:org/sso/domains`)
 * and connect their identity provider over SAML 2.0 or OpenID Connect
 * (`/orgs/:org/sso/connections`); people sign in at `/sso/login?email=` and become members just in
 * time. See the SSO guide for the routes, the checks and the IdP setup.
 */
export function sso(options: SsoOptions): SsoPlugin {
  const checked = checkSsoOptions(options);
  // OpenID Connect connections need none of SAML's packages: without them, SAML connections are refused when made.
  const samlMissing = missingPackages(SAML_PACKAGES);
  let domains: SsoDomains | undefined;
  let connections: SsoConnections | undefined;
  return {
    name: 'sso',
    requires: ['organizations'],
    optional: ['admin'],
    errorCodes: SSO_ERROR_CODES,
    messages: mergeMessages(SSO_MESSAGES, SSO_SETUP_MESSAGES),
    eventTypes: SSO_EVENT_TYPES,
    // A company signs in from few addresses: its morning rush is many people behind one IP.
    rateLimits: { ssoRoutesPerUser: { limit: 60, windowMs: 60_000 }, [SSO_LOGIN_LIMIT]: { limit: 300, windowMs: 60_000 } },
    get domains(): SsoDomains {
      if (domains === undefined) throw configError('sso(): its domains exist once createAuth({ plugins: [...] }) has set the plugin up');
      return domains;
    },
    get connections(): SsoConnections {
      if (connections === undefined) throw configError('sso(): its connections exist once createAuth({ plugins: [...] }) has set the plugin up');
      return connections;
    },
    setup(ctx) {
      const orgs = ctx.service(ORGANIZATIONS_SERVICE);
      if (orgs === undefined) throw configError('sso() needs the organizations plugin');
      const repo = ctx.openStore(checked.store ?? ctx.storeUri('sso'), (uri) => new SsoRepository(openDatabase(uri, 'SSO')), 'SSO store');
      const madeDomains = new SsoDomains(repo, orgs, checked.dns ?? {}, ctx.events);
      const madeConnections = new SsoConnections(repo, orgs, new SecretBox(checked.key, 'sso'), ctx.events, { privateOrigins: checked.privateOrigins, skewMs: checked.clockSkewMs, samlMissing });
      if (samlMissing.length > 0) logTo(ctx.logger).warn('sso(): SAML connections are off until you run npm install {packages} (OpenID Connect connections work)', { packages: samlMissing.join(' ') });
      domains = madeDomains;
      connections = madeConnections;
      // A connection ends with its author's power (as keys, grants and invitations do).
      whenPowerLost(ctx.events, orgs, SSO_PERMISSION, 'sso:end-connections', (userId, reason, orgId) => madeConnections.endChangesBy(userId, reason, orgId));
      whenOrgDeleted(
        ctx.events,
        'sso:org-deleted',
        (org) => madeDomains.orgDeleted(org),
        (org) => madeConnections.orgDeleted(org),
      );
      const provider = new SsoProvider({
        parked: ctx.stateStore,
        connections: madeConnections,
        domains: madeDomains,
        orgs,
        users: ctx.users,
        directory: () => ctx.service(ORG_DIRECTORY_SERVICE),
        privateOrigins: checked.privateOrigins,
        skewMs: checked.clockSkewMs,
        revokeAll: (userId) => ctx.sessions.revokeAll(userId),
        ticketKey: createHmac('sha256', checked.key).update('sso-logout-ticket').digest(),
        rateLimit: (name, identity) => ctx.rateLimit(name, identity),
        navigationUser: async (req, res) => (await ctx.authenticator.navigationClaims(req.raw as Request, res)).user as User,
      });
      // Where the auth routes are mounted is known from the first request to them: the refusal then names the whole URL to start at.
      let authBase: string | undefined;
      const noteBase: RequestHandler = (req, _res, next) => {
        authBase = `${ctx.url.href.replace(/\/+$/, '')}${req.baseUrl}`;
        next();
      };
      const startAt = (): string => (authBase === undefined ? '/sso/login?email=<address> below where the auth routes are mounted' : `${authBase}/sso/login?email=<address>`);
      // Enforcement: every way of signing in with an address of an enforced domain, once the address is known.
      const enforce: ActionHook = {
        async before({ address, method, login }) {
          if (address === undefined) return;
          const domain = domainOfAddress(address);
          if (domain === undefined) return;
          const enforcer = await madeDomains.enforcedBy(domain);
          if (enforcer === undefined) return;
          // What enforcement asks for: a login through a connection of the organization that enforces the domain (not another's).
          if (method === 'login' && login?.provider === SSO_PROVIDER && login.user.attrs?.sso_org === enforcer) return;
          throw new AuthError('forbidden', `${domain} signs in through its organization's identity provider: start at ${startAt()}`, { reason: 'sso_required' });
        },
      };
      return {
        actions: { 'sign-in': enforce, 'sign-up': enforce, recovery: enforce, 'email-link': enforce },
        providers: [provider],
        services: { [VERIFIED_DOMAINS_SERVICE]: madeDomains },
        userEvents: {
          credentialsReset: async (userId) => {
            const n = await madeConnections.endChangesBy(userId, 'credentials_reset');
            return n === 0 ? [] : [`${n} SSO connection${n === 1 ? '' : 's'} disabled`];
          },
          userDeleted: async (userId) => void (await madeConnections.endChangesBy(userId, 'removed')),
        },
        routes: [
          ...ssoRouteList({
            domains: madeDomains,
            connections: madeConnections,
            url: ctx.url,
            authenticator: ctx.authenticator,
            rateLimit: (name, id) => ctx.rateLimit(name, id),
            translations: ctx.translations,
          }),
          ...adminSsoRoutes(ctx.service(ADMIN_SERVICE), repo, orgs, ctx.authenticator),
        ].map((route) => ({ ...route, handler: [noteBase, ...[route.handler].flat()] })),
        close: () => repo.close(),
      };
    },
  };
}
