import type { Request, Response } from 'express';
import { AuthError, countMetric, requestClient, param } from '../../plugin-kit/helpers';
import { asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import { type PluginAuthenticator, type PluginRoute, type RouteMethod, routeCaller, type OrgAuthority } from '../../plugin-kit/plugin-api';
import { listResponse, resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';
import { ScimError, sendScim, sendScimError } from './scim-errors';
import type { ScimScope, ScimTokens } from './scim-tokens';
import { answerScimError, SCIM_BODY_LIMIT, scimUserRoutes, type ScimHandler } from './scim-user-routes';
import type { ScimUsers } from './scim-users';
import type { ScimGroups } from './scim-groups';
import { scimGroupRoutes } from './scim-group-routes';
import { scimSettingsRoutes } from './scim-settings-routes';
import { tokenId } from './token-schema';

/** The SCIM base path below the auth router. */
export const SCIM_BASE = '/scim/v2';

/** What the SCIM routes need. */
export interface ScimRouteDeps {
  tokens: ScimTokens;
  users: ScimUsers;
  groups: ScimGroups;
  orgs: OrgAuthority;
  authenticator: PluginAuthenticator;
  /** The app's public URL. */
  url: URL;
  rateLimit(name: string, identity: string): Promise<void>;
}

/** The methods each SCIM endpoint answers, by its lower-case name: without an id, and with one. */
const METHODS: Readonly<Record<string, readonly [string, string]>> = {
  serviceproviderconfig: ['GET', ''],
  resourcetypes: ['GET', 'GET'],
  schemas: ['GET', 'GET'],
  users: ['GET, POST', 'GET, PUT, PATCH, DELETE'],
  groups: ['GET, POST', 'GET, PUT, PATCH, DELETE'],
};

/** Answers a request no SCIM route took: 405 with `Allow` for another method of an endpoint, else 404. */
function elsewhere(withId: boolean): ScimHandler {
  return async (req, res) => {
    const allowed = METHODS[String(req.params.resource).toLowerCase()]?.[withId ? 1 : 0];
    if (!allowed) throw new ScimError(404, 'no such SCIM endpoint: see /ResourceTypes');
    res.setHeader('Allow', allowed);
    throw new ScimError(405, `use ${allowed}`);
  };
}

/** The organization of the request's SCIM token (`Authorization: Bearer scim_…`), counted against its rate limit; a SCIM 401 otherwise. */
async function scopeOf(req: Request, deps: ScimRouteDeps): Promise<ScimScope> {
  const [scheme, token] = (req.headers.authorization ?? '').split(' ');
  const scope = scheme?.toLowerCase() === 'bearer' && token ? await deps.tokens.scopeOf(token) : undefined;
  if (scope === undefined) throw new ScimError(401, 'a SCIM token of the organization is required: Authorization: Bearer scim_…');
  await deps.rateLimit('scimPerToken', tokenId(token as string));
  return scope;
}

/**
 * The organization's SCIM tokens (`GET`, `POST {name}`, `DELETE /:id` under `/orgs/:org/scim/tokens`,
 * for its admins with a fresh login), and the SCIM service at `/scim/v2` for its directory:
 * `ServiceProviderConfig`, `ResourceTypes`, `Schemas`, `Users`. Every SCIM answer is `application/scim+json`,
 * errors in RFC 7644's shape.
 */
export function scimRouteList(deps: ScimRouteDeps): PluginRoute[] {
  const caller = routeCaller(deps.authenticator, deps.rateLimit, 'scimRoutesPerUser');
  const org = (req: Request): string => param(req.params.org, 'organization');
  const orgIdOf = async (req: Request): Promise<string> => {
    const found = await deps.orgs.lookup(org(req));
    if (found === undefined) throw new AuthError('not_found', 'no such organization');
    return found.id;
  };
  const base = (req: Request): string => `${deps.url.href.replace(/\/+$/, '')}${req.baseUrl}${SCIM_BASE}`;
  const route = (method: RouteMethod, path: string, handler: ScimHandler): PluginRoute => ({
    method,
    path,
    bodyLimit: SCIM_BODY_LIMIT,
    answerError: answerScimError,
    handler: async (req: Request, res: Response): Promise<void> => {
      try {
        const scope = await scopeOf(req, deps);
        const body = await handler(req, res, scope.orgId, scope.maker);
        if (body !== undefined) sendScim(res, 200, body);
      } catch (err) {
        sendScimError(res, err);
      }
      countMetric('authgate.scim.operations', { 'authgate.operation': `${req.method} ${path.split('/')[3] ?? ''}`, 'http.response.status_code': res.statusCode });
    },
  });
  const one = (list: (base: string) => Array<Record<string, unknown>>, key: 'id') => async (req: Request) => {
    const found = list(base(req)).find((r) => r[key] === req.params.id);
    if (found === undefined) throw new ScimError(404, 'no such resource');
    return found;
  };
  return [
    {
      method: 'GET',
      path: '/orgs/:org/scim/tokens',
      handler: asyncHandler(async (req, res) => sendJson(res, 200, await deps.tokens.list(org(req), await caller(req, res, false)))),
    },
    {
      method: 'POST',
      path: '/orgs/:org/scim/tokens',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        sendJson(res, 201, { ...(await deps.tokens.create(org(req), user, objectBody(req).name, requestClient(req))), baseUrl: base(req) });
      }),
    },
    {
      method: 'DELETE',
      path: '/orgs/:org/scim/tokens/:id',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        await deps.tokens.revoke(org(req), user, param(req.params.id, 'token'), requestClient(req));
        sendJson(res, 200, { status: 'revoked' });
      }),
    },
    {
      method: 'GET',
      path: '/orgs/:org/scim/link',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, false);
        const person = await deps.users.offerFor(await orgIdOf(req), user.id);
        sendJson(res, 200, { person: person === undefined ? null : { id: person.id, userName: person.userName } });
      }),
    },
    {
      method: 'POST',
      path: '/orgs/:org/scim/link',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        const linked = await deps.users.consent(await orgIdOf(req), user.id);
        sendJson(res, 200, { linked: true, person: { id: linked.id, userName: linked.userName } });
      }),
    },
    route('GET', `${SCIM_BASE}/ServiceProviderConfig`, async (req) => serviceProviderConfig(base(req))),
    route('GET', `${SCIM_BASE}/ResourceTypes`, async (req) => listResponse(resourceTypes(base(req)))),
    route('GET', `${SCIM_BASE}/ResourceTypes/:id`, one(resourceTypes, 'id')),
    route('GET', `${SCIM_BASE}/Schemas`, async (req) => listResponse(schemas(base(req)))),
    route('GET', `${SCIM_BASE}/Schemas/:id`, one(schemas, 'id')),
    ...scimUserRoutes(`${SCIM_BASE}/Users`, { users: deps.users, groups: (orgId) => deps.groups.membership(orgId), base, route }),
    ...scimGroupRoutes(`${SCIM_BASE}/Groups`, deps.groups, { base, route }),
    ...scimSettingsRoutes({ groups: deps.groups, orgs: deps.orgs, caller }),
    // Last: what no route above answered gets SCIM's 404 or 405, not the auth router's JSON.
    route('ALL', `${SCIM_BASE}/:resource`, elsewhere(false)),
    route('ALL', `${SCIM_BASE}/:resource/:id`, elsewhere(true)),
  ];
}
