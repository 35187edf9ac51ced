import type { Request, RequestHandler, Response } from 'express';
import { type PluginAuthenticator, type PluginRoute, type RouteMethod, rolesField } from '../../plugin-kit/plugin-api';
import { AuthError, nameField, param } from '../../plugin-kit/helpers';
import { clientIp, asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import { stateCall } from '../../plugin-kit/state';
import type { Claims, User } from '../../plugin-kit/sessions';
import { emailField, slugField, teamsField, tokenField } from './org-input';
import type { OrgCaller, OrgService } from './org-service';
import { ACTIVE_ORG_CLAIM } from './org-records';

/** What the organization routes need. */
export interface OrgRouteDeps {
  orgs: OrgService;
  authenticator: PluginAuthenticator;
  /** Counts a hit against one of the plugin's rate limits. */
  rateLimit(name: string, identity: string): Promise<void>;
  /** The plugins' action guards (a CAPTCHA) on accepting an invitation. */
  checkAction(action: 'invitation-accept', req: Request): Promise<void>;
  /** The language of a request (the invitation mail speaks the inviter's). */
  localeOf(req: Request): string;
}

type Handler = (req: Request, res: Response, caller: OrgCaller & { user: User; claims: Claims }) => Promise<void>;

/** The most members one page of `GET /orgs/:org/members` holds, and how many when `limit` is not given. */
export const MEMBER_PAGE = 1000;

/** `?cursor=` (the previous page's next link) and `?limit=` (1 to {@link MEMBER_PAGE}) of a member list. */
function memberPageQuery(req: Request): { cursor?: string | undefined; limit: number } {
  const { cursor, limit } = req.query;
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length > 2048)) throw new AuthError('bad_request', "cursor must be the one in the previous page's next link");
  if (limit !== undefined && (typeof limit !== 'string' || !/^[1-9][0-9]{0,3}$/.test(limit) || Number(limit) > MEMBER_PAGE))
    throw new AuthError('bad_request', `limit must be a whole number from 1 to ${MEMBER_PAGE}`);
  return { cursor, limit: limit === undefined ? MEMBER_PAGE : Number(limit) };
}

/** What the route groups share: the service, the checks and the helpers of every organization route. */
interface OrgRouteKit {
  orgs: OrgService;
  authenticator: PluginAuthenticator;
  deps: OrgRouteDeps;
  /** Counts a hit against one of the plugin's rate limits (429 past it). */
  limit(name: string, identity: string): Promise<void>;
  /** The `:org` of the path (an id or a slug). */
  org(req: Request): string;
  /** Ends acting in organization `orgId` when this session does (after leaving or deleting it). */
  leaveActive(res: Response, caller: { claims: Claims }, orgId: string): Promise<void>;
  /** A route that needs a login and counts against `orgRequestsPerUser`. */
  on(method: RouteMethod, path: string, handler: Handler): PluginRoute;
}

function orgRouteKit(deps: OrgRouteDeps, noteMount: RequestHandler): OrgRouteKit {
  const { orgs, authenticator } = deps;
  const limit = (name: string, identity: string): Promise<void> => stateCall(() => deps.rateLimit(name, identity));
  const route = (handler: Handler): RequestHandler =>
    asyncHandler(async (req, res) => {
      const claims = await authenticator.tokenClaims(req, res);
      const user = claims.user as User;
      await limit('orgRequestsPerUser', user.id);
      const stepUp = async (): Promise<void> => void (await authenticator.stepUpClaims(req, res));
      await handler(req, res, { id: user.id, user, claims, stepUp });
    });
  return {
    orgs,
    authenticator,
    deps,
    limit,
    org: (req) => param(req.params.org, 'organization'),
    async leaveActive(res, caller, orgId) {
      if (caller.claims[ACTIVE_ORG_CLAIM] === orgId) await authenticator.reissue(res, caller.claims, { [ACTIVE_ORG_CLAIM]: undefined });
    },
    on: (method, path, handler) => ({ method, path, handler: [noteMount, route(handler)] }),
  };
}

/** The organizations themselves: list, create, accept an invitation, read, change, delete, act in one. */
function organizationRoutes({ orgs, authenticator, deps, limit, org, leaveActive, on }: OrgRouteKit): PluginRoute[] {
  return [
    on('GET', '/orgs', async (_req, res, caller) => {
      const active = caller.claims[ACTIVE_ORG_CLAIM];
      sendJson(
        res,
        200,
        (await orgs.mine(caller.id)).map((o) => ({ ...o, active: o.id === active })),
      );
    }),
    on('POST', '/orgs', async (req, res, caller) => {
      const body = objectBody(req);
      const input = { name: nameField(body.name, 'name'), slug: slugField(body.slug) };
      await limit('orgCreatePerUser', caller.id);
      sendJson(res, 201, await orgs.create(caller.user, input));
    }),
    on('POST', '/orgs/invitations/preview', async (req, res, caller) => {
      const token = tokenField(objectBody(req).token);
      await limit('orgAcceptPerIp', clientIp(req));
      sendJson(res, 200, await orgs.previewInvitation(caller.user, token));
    }),
    on('POST', '/orgs/invitations/accept', async (req, res, caller) => {
      const token = tokenField(objectBody(req).token);
      await limit('orgAcceptPerIp', clientIp(req));
      await deps.checkAction('invitation-accept', req);
      sendJson(res, 200, await orgs.accept(caller.user, token));
    }),
    on('GET', '/orgs/:org', async (req, res, caller) => {
      const { teamList, ...view } = await orgs.get(org(req), caller.id);
      sendJson(res, 200, { ...view, teams: teamList, memberTeams: view.teams, active: view.id === caller.claims[ACTIVE_ORG_CLAIM] });
    }),
    on('PATCH', '/orgs/:org', async (req, res, caller) => {
      const body = objectBody(req);
      const input = { name: body.name === undefined ? undefined : nameField(body.name, 'name'), slug: slugField(body.slug) };
      sendJson(res, 200, await orgs.update(org(req), caller, input));
    }),
    on('DELETE', '/orgs/:org', async (req, res, caller) => {
      const { org: found } = await orgs.find(org(req), caller.id);
      await orgs.delete(found.id, caller);
      await leaveActive(res, caller, found.id);
      sendJson(res, 200, { status: 'deleted' });
    }),
    on('POST', '/orgs/:org/activate', async (req, res, caller) => {
      const view = await orgs.get(org(req), caller.id);
      await authenticator.reissue(res, caller.claims, { [ACTIVE_ORG_CLAIM]: view.id });
      const { teamList: _teams, ...shown } = view;
      sendJson(res, 200, { ...shown, active: true });
    }),
  ];
}

/** The members of an organization: a page of them, a member's roles and teams, removing one (or leaving). */
function memberRoutes({ orgs, org, leaveActive, on }: OrgRouteKit): PluginRoute[] {
  return [
    on('GET', '/orgs/:org/members', async (req, res, caller) => {
      const page = await orgs.members(org(req), caller.id, memberPageQuery(req));
      // A page at a time (RFC 8288's next link), so the body stays the list it always was.
      if (page.next !== undefined) res.setHeader('Link', `<${req.baseUrl}${req.path}?${new URLSearchParams({ cursor: page.next, limit: String(memberPageQuery(req).limit) })}>; rel="next"`);
      sendJson(res, 200, page.members);
    }),
    on('PATCH', '/orgs/:org/members/:userId', async (req, res, caller) => {
      const body = objectBody(req);
      const input = { roles: rolesField(body), teams: teamsField(body.teams) };
      sendJson(res, 200, await orgs.updateMember(org(req), caller, param(req.params.userId, 'member'), input));
    }),
    on('DELETE', '/orgs/:org/members/:userId', async (req, res, caller) => {
      const { org: found } = await orgs.find(org(req), caller.id);
      const target = param(req.params.userId, 'member');
      await orgs.removeMember(found.id, caller, target);
      if (target === caller.id) await leaveActive(res, caller, found.id);
      sendJson(res, 200, { status: target === caller.id ? 'left' : 'removed' });
    }),
  ];
}

/** The invitations of an organization: list, invite (a mail), cancel. */
function invitationRoutes({ orgs, deps, limit, org, on }: OrgRouteKit): PluginRoute[] {
  return [
    on('GET', '/orgs/:org/invitations', async (req, res, caller) => sendJson(res, 200, await orgs.invitations(org(req), caller.id))),
    on('POST', '/orgs/:org/invitations', async (req, res, caller) => {
      const body = objectBody(req);
      const input = { email: emailField(body.email), roles: rolesField(body, ['member']) as string[] };
      const { org: found } = await orgs.find(org(req), caller.id);
      await limit('orgInvitesPerUser', caller.id);
      await limit('orgInvitesPerOrg', found.id);
      sendJson(res, 201, await orgs.invite(found.id, caller, input, deps.localeOf(req)));
    }),
    on('DELETE', '/orgs/:org/invitations/:id', async (req, res, caller) => {
      await orgs.cancel(org(req), caller.id, param(req.params.id, 'invitation'));
      sendJson(res, 200, { status: 'cancelled' });
    }),
  ];
}

/** The teams of an organization: list, add, rename, delete. */
function teamRoutes({ orgs, org, on }: OrgRouteKit): PluginRoute[] {
  return [
    on('GET', '/orgs/:org/teams', async (req, res, caller) => sendJson(res, 200, (await orgs.get(org(req), caller.id)).teamList)),
    on('POST', '/orgs/:org/teams', async (req, res, caller) => sendJson(res, 201, await orgs.addTeam(org(req), caller.id, nameField(objectBody(req).name, 'name', 64)))),
    on('PATCH', '/orgs/:org/teams/:team', async (req, res, caller) => {
      await orgs.renameTeam(org(req), caller.id, param(req.params.team, 'team'), nameField(objectBody(req).name, 'name', 64));
      sendJson(res, 200, { status: 'renamed' });
    }),
    on('DELETE', '/orgs/:org/teams/:team', async (req, res, caller) => {
      await orgs.deleteTeam(org(req), caller.id, param(req.params.team, 'team'));
      sendJson(res, 200, { status: 'deleted' });
    }),
  ];
}

/**
 * The organization routes under the auth router: organizations, members, invitations, teams and
 * the active organization of the session. Every route needs a login (the token read checks XSRF;
 * the router in front refuses cross-site writes) and counts against `orgRequestsPerUser`.
 * @param noteMount - runs first on each: the plugin learns where the app mounted the auth router.
 */
export function orgRouteList(deps: OrgRouteDeps, noteMount: RequestHandler): PluginRoute[] {
  const kit = orgRouteKit(deps, noteMount);
  return [...organizationRoutes(kit), ...memberRoutes(kit), ...invitationRoutes(kit), ...teamRoutes(kit)];
}
