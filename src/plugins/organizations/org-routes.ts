import type { Request, Response, Router } from 'express';
import { type PluginAuthenticator, rolesField } from '../../plugin-kit/plugin-api';
import { AuthError, nameField, param } from '../../plugin-kit/helpers';
import { clientIp, asyncHandler, sendJson, objectBody, onlyMethods } from '../../plugin-kit/http';
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

/**
 * The organization routes under the auth router: organizations, members, invitations, teams and
 * the active organization of the session. Every route needs a login (the token read checks XSRF;
 * the router in front refuses cross-site writes) and counts against `orgRequestsPerUser`.
 */
export function addOrgRoutes(router: Router, deps: OrgRouteDeps): void {
  const { orgs, authenticator } = deps;
  const limit = (name: string, identity: string): Promise<void> => stateCall(() => deps.rateLimit(name, identity));
  const route = (handler: Handler) =>
    asyncHandler(async (req, res) => {
      const claims = await authenticator.tokenClaims(req, res);
      const user = claims.user as User;
      await limit('orgRequestsPerUser', user.id);
      const stepUp = async (): Promise<void> => void (await authenticator.stepUpClaims(req, res));
      await handler(req, res, { id: user.id, user, claims, stepUp });
    });
  const methods = (path: string, allowed: string): void => onlyMethods(router, path, allowed);
  const org = (req: Request): string => param(req.params.org, 'organization');
  /** Ends acting in organization `orgId` when this session does (after leaving or deleting it). */
  const leaveActive = async (res: Response, caller: { claims: Claims }, orgId: string): Promise<void> => {
    if (caller.claims[ACTIVE_ORG_CLAIM] === orgId) await authenticator.reissue(res, caller.claims, { [ACTIVE_ORG_CLAIM]: undefined });
  };

  router.get(
    '/orgs',
    route(async (_req, res, caller) => {
      const active = caller.claims[ACTIVE_ORG_CLAIM];
      sendJson(
        res,
        200,
        (await orgs.mine(caller.id)).map((o) => ({ ...o, active: o.id === active })),
      );
    }),
  );
  router.post(
    '/orgs',
    route(async (req, res, caller) => {
      const body = objectBody(req);
      const input = { name: nameField(body.name, 'name'), slug: slugField(body.slug) };
      await limit('orgCreatePerUser', caller.id);
      sendJson(res, 201, await orgs.create(caller.user, input));
    }),
  );
  methods('/orgs', 'GET, POST');

  router.post(
    '/orgs/invitations/accept',
    route(async (req, res, caller) => {
      const token = tokenField(objectBody(req).token);
      await limit('orgAcceptPerIp', clientIp(req));
      await deps.checkAction('invitation-accept', req);
      sendJson(res, 200, await orgs.accept(caller.user, token));
    }),
  );
  methods('/orgs/invitations/accept', 'POST');

  router.get(
    '/orgs/:org',
    route(async (req, res, caller) => {
      const { teamList, ...view } = await orgs.get(org(req), caller.id);
      sendJson(res, 200, { ...view, teams: teamList, memberTeams: view.teams, active: view.id === caller.claims[ACTIVE_ORG_CLAIM] });
    }),
  );
  router.patch(
    '/orgs/:org',
    route(async (req, res, caller) => {
      const body = objectBody(req);
      const input = { name: body.name === undefined ? undefined : nameField(body.name, 'name'), slug: slugField(body.slug) };
      sendJson(res, 200, await orgs.update(org(req), caller, input));
    }),
  );
  router.delete(
    '/orgs/:org',
    route(async (req, res, caller) => {
      const { org: found } = await orgs.find(org(req), caller.id);
      await orgs.delete(found.id, caller);
      await leaveActive(res, caller, found.id);
      sendJson(res, 200, { status: 'deleted' });
    }),
  );
  methods('/orgs/:org', 'GET, PATCH, DELETE');

  router.post(
    '/orgs/:org/activate',
    route(async (req, res, caller) => {
      const view = await orgs.get(org(req), caller.id);
      await authenticator.reissue(res, caller.claims, { [ACTIVE_ORG_CLAIM]: view.id });
      const { teamList: _teams, ...shown } = view;
      sendJson(res, 200, { ...shown, active: true });
    }),
  );
  methods('/orgs/:org/activate', 'POST');

  router.get(
    '/orgs/:org/members',
    route(async (req, res, caller) => {
      const page = await orgs.members(org(req), caller.id, memberPageQuery(req));
      // A page at a time (RFC 8288's next link), so the body stays the list it always was.
      if (page.next !== undefined) res.setHeader('Link', `<${req.baseUrl}${req.path}?${new URLSearchParams({ cursor: page.next, limit: String(memberPageQuery(req).limit) })}>; rel="next"`);
      sendJson(res, 200, page.members);
    }),
  );
  methods('/orgs/:org/members', 'GET');
  router.patch(
    '/orgs/:org/members/:userId',
    route(async (req, res, caller) => {
      const body = objectBody(req);
      const input = { roles: rolesField(body), teams: teamsField(body.teams) };
      sendJson(res, 200, await orgs.updateMember(org(req), caller, param(req.params.userId, 'member'), input));
    }),
  );
  router.delete(
    '/orgs/:org/members/:userId',
    route(async (req, res, caller) => {
      const { org: found } = await orgs.find(org(req), caller.id);
      const target = param(req.params.userId, 'member');
      await orgs.removeMember(found.id, caller, target);
      if (target === caller.id) await leaveActive(res, caller, found.id);
      sendJson(res, 200, { status: target === caller.id ? 'left' : 'removed' });
    }),
  );
  methods('/orgs/:org/members/:userId', 'PATCH, DELETE');

  router.get(
    '/orgs/:org/invitations',
    route(async (req, res, caller) => sendJson(res, 200, await orgs.invitations(org(req), caller.id))),
  );
  router.post(
    '/orgs/:org/invitations',
    route(async (req, res, caller) => {
      const body = objectBody(req);
      const input = { email: emailField(body.email), roles: rolesField(body, ['member']) as string[] };
      const { org: found } = await orgs.find(org(req), caller.id);
      await limit('orgInvitesPerUser', caller.id);
      await limit('orgInvitesPerOrg', found.id);
      sendJson(res, 201, await orgs.invite(found.id, caller, input, deps.localeOf(req)));
    }),
  );
  methods('/orgs/:org/invitations', 'GET, POST');
  router.delete(
    '/orgs/:org/invitations/:id',
    route(async (req, res, caller) => {
      await orgs.cancel(org(req), caller.id, param(req.params.id, 'invitation'));
      sendJson(res, 200, { status: 'cancelled' });
    }),
  );
  methods('/orgs/:org/invitations/:id', 'DELETE');

  router.get(
    '/orgs/:org/teams',
    route(async (req, res, caller) => sendJson(res, 200, (await orgs.get(org(req), caller.id)).teamList)),
  );
  router.post(
    '/orgs/:org/teams',
    route(async (req, res, caller) => sendJson(res, 201, await orgs.addTeam(org(req), caller.id, nameField(objectBody(req).name, 'name', 64)))),
  );
  methods('/orgs/:org/teams', 'GET, POST');
  router.patch(
    '/orgs/:org/teams/:team',
    route(async (req, res, caller) => {
      await orgs.renameTeam(org(req), caller.id, param(req.params.team, 'team'), nameField(objectBody(req).name, 'name', 64));
      sendJson(res, 200, { status: 'renamed' });
    }),
  );
  router.delete(
    '/orgs/:org/teams/:team',
    route(async (req, res, caller) => {
      await orgs.deleteTeam(org(req), caller.id, param(req.params.team, 'team'));
      sendJson(res, 200, { status: 'deleted' });
    }),
  );
  methods('/orgs/:org/teams/:team', 'PATCH, DELETE');
}
