import { ORG_MESSAGES } from './org-messages';
import { ORG_EVENT_TYPES, ORGANIZATIONS_SERVICE, ADMIN_SERVICE, type AuthPlugin } from '../../plugin-kit/plugin-api';
import { announceGuards } from '../../plugin-kit/sessions';
import type { RequestHandler } from 'express';
import { adminOrgRouteList } from './admin-org-routes';
import { createOrgStore } from './create-org-store';
import { MembershipCache } from './membership-cache';
import { orgGuards } from './org-guards';
import { checkOrganizationOptions, type OrganizationOptions } from './org-options';
import { orgRouteList } from './org-routes';
import { OrgService } from './org-service';

/** The organizations plugin, with its service once `createAuth` has set it up. */
export interface OrganizationsPlugin extends AuthPlugin {
  /** Organizations, members, invitations and teams for the app's own code; throws before `createAuth` ran. */
  readonly service: OrgService;
}

/** The error codes the plugin answers with (besides the core's). */
export const ORG_ERROR_CODES = ['org_required', 'not_a_member', 'role_required', 'permission_required', 'last_owner', 'slug_taken', 'invitation_invalid', 'already_member', 'limit_reached'] as const;

declare module '../../core/middleware/middleware-set' {
  interface Middleware {
    /**
     * Lets through only members of the session's active organization holding one of `roles` (any
     * member without roles), checked against the current membership (organizations plugin).
     * `orgOf(req)` then gives the organization and the member's roles. 401, or 403 with `code`
     * `org_required`, `not_a_member` or `role_required`.
     */
    org(...roles: string[]): RequestHandler;
    /** As {@link Middleware.org}, for members whose roles hold every one of `permissions`; 403 `permission_required` otherwise. */
    can(...permissions: string[]): RequestHandler;
  }
}
announceGuards('organizations({...})', ['org', 'can']);

declare module '../../base/errors' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the organizations' reasons join the registry
  interface AuthErrorReasons extends Record<(typeof ORG_ERROR_CODES)[number], true> {}
}

/**
 * Organizations and teams: `createAuth({ plugins: [organizations({ sender })] })`. Routes under
 * `/orgs`, middleware `m.org(...roles)` and `m.can(...permissions)`, `orgOf(req)`. Members, roles,
 * invitations by mail, teams; a change of membership holds on the next request on every instance.
 */
export function organizations(options: OrganizationOptions): OrganizationsPlugin {
  const checked = checkOrganizationOptions(options);
  let service: OrgService | undefined;
  return {
    name: 'organizations',
    errorCodes: ORG_ERROR_CODES,
    messages: ORG_MESSAGES,
    eventTypes: ORG_EVENT_TYPES,
    rateLimits: {
      orgRequestsPerUser: { limit: 120, windowMs: 60_000 },
      orgCreatePerUser: { limit: 10, windowMs: 3_600_000 },
      orgInvitesPerUser: { limit: 30, windowMs: 3_600_000 },
      orgInvitesPerOrg: { limit: 200, windowMs: 24 * 3_600_000 },
      orgAcceptPerIp: { limit: 30, windowMs: 10 * 60_000 },
    },
    get service(): OrgService {
      if (service === undefined) throw new Error('organizations(): the service exists once createAuth({ plugins: [...] }) has set the plugin up');
      return service;
    },
    setup(ctx) {
      const store = ctx.openStore(checked.store ?? ctx.storeUri('organizations'), createOrgStore, 'organization store');
      const cache = new MembershipCache(store, ctx.stateStore);
      const orgs = new OrgService(store, cache, checked, { url: ctx.url, users: ctx.users, logger: ctx.logger, events: ctx.events, translations: ctx.translations });
      service = orgs;
      // A banned member's invitations go with its sessions (accepting one checks the ban as well).
      ctx.events.on('user.banned', async (e) => void (e.userId !== undefined ? await orgs.dropInvitationsOf(e.userId) : undefined), { retryAs: 'orgs:drop-invitations' });
      // Where the app mounted the auth router, learnt from its first request (a login comes before any org), for the guards' messages.
      let authMount: string | undefined;
      return {
        routes: [
          ...orgRouteList(
            {
              orgs,
              authenticator: ctx.authenticator,
              rateLimit: (name, id) => ctx.rateLimit(name, id),
              checkAction: (action, req) => ctx.checkAction(action, ctx.toLoginRequest(req)),
              localeOf: (req) => ctx.translations.localeOf(req),
            },
            (req, _res, next) => {
              authMount ??= req.baseUrl;
              next();
            },
          ),
          // Asked per request: the admin plugin may be set up after this one.
          ...adminOrgRouteList({ admin: () => ctx.service(ADMIN_SERVICE), store, users: ctx.users, authenticator: ctx.authenticator }),
        ],
        guards: orgGuards(cache, checked.roles, () => authMount ?? '<auth mount>'),
        userEvents: {
          userDeleted: (userId) => orgs.userDeleted(userId),
          userIdChanged: (from, to) => orgs.userIdChanged(from, to),
          credentialsReset: async (userId) => {
            const n = await orgs.dropInvitationsOf(userId);
            return n === 0 ? [] : [`${n} pending invitation${n === 1 ? '' : 's'}`];
          },
        },
        services: { [ORGANIZATIONS_SERVICE]: orgs },
        async close() {
          await cache.close();
          await store.close();
        },
      };
    },
  };
}
