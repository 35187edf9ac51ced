import type { Request } from 'express';
import { requestClient } from '../../core/events/event-bus';
import { asyncHandler } from '../../internal/async-handler';
import { sendJson } from '../../internal/http';
import { objectBody } from '../../internal/router-shell';
import { param } from '../../internal/text';
import type { PluginAuthenticator } from '../../plugin-api/core-api';
import type { PluginRoute } from '../../plugin-api/plugin';
import { routeCaller } from '../../plugin-api/route-caller';
import type { SsoDomains } from './sso-domains';

/** What the SSO routes need. */
export interface SsoRouteDeps {
  domains: SsoDomains;
  authenticator: PluginAuthenticator;
  rateLimit(name: string, identity: string): Promise<void>;
}

/**
 * An organization's domains: `GET /orgs/:org/sso/domains`, `POST` `{domain}` (a claim; 201, or 200
 * when it was claimed already), `POST /orgs/:org/sso/domains/:domain/verify`, `DELETE
 * /orgs/:org/sso/domains/:domain`. For its members holding `org:update`; every change needs a fresh
 * login with the session cookie (a verified domain decides who may sign in through SSO).
 */
export function ssoRouteList(deps: SsoRouteDeps): PluginRoute[] {
  const caller = routeCaller(deps.authenticator, deps.rateLimit, 'ssoRoutesPerUser');
  const org = (req: Request): string => param(req.params.org, 'organization');
  return [
    {
      method: 'GET',
      path: '/orgs/:org/sso/domains',
      handler: asyncHandler(async (req, res) => sendJson(res, 200, await deps.domains.list(org(req), await caller(req, res, false)))),
    },
    {
      method: 'POST',
      path: '/orgs/:org/sso/domains',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        const { created, domain } = await deps.domains.claim(org(req), user, objectBody(req).domain);
        sendJson(res, created ? 201 : 200, domain);
      }),
    },
    {
      method: 'POST',
      path: '/orgs/:org/sso/domains/:domain/verify',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        sendJson(res, 200, await deps.domains.verify(org(req), user, req.params.domain, requestClient(req)));
      }),
    },
    {
      method: 'DELETE',
      path: '/orgs/:org/sso/domains/:domain',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        await deps.domains.remove(org(req), user, req.params.domain, requestClient(req));
        sendJson(res, 200, { status: 'deleted' });
      }),
    },
  ];
}
