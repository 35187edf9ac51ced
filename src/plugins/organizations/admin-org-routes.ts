import { AuthError } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';
import { asyncHandler, sendJson } from '../../plugin-kit/http';
import type { AdminAuthority, PluginAuthenticator, PluginRoute, PluginUsers } from '../../plugin-kit/plugin-api';
import type { OrgStore } from './org-store';
import { rolesOf } from './member-writes';

/** What the admin console's organization routes use. */
export interface AdminOrgDeps {
  /** The admin plugin's judgement, asked per request (`undefined` without the plugin: 404). */
  admin: () => AdminAuthority | undefined;
  store: OrgStore;
  users: PluginUsers;
  authenticator: PluginAuthenticator;
}

/** The most organizations one page of the console's list holds. */
const PAGE = 50;
/** The most members one page of an organization in the console holds (`next` gives the following page). */
const MEMBERS_PAGE = 200;

/** The `?cursor=` of a console page: the `next` of the previous one. @throws AuthError (`bad_request`) for anything else. */
function pageCursor(given: unknown, maxLength: number): string | undefined {
  if (given !== undefined && (typeof given !== 'string' || given.length > maxLength)) throw new AuthError('bad_request', 'cursor must be the next of the previous page');
  return given as string | undefined;
}

/**
 * `GET /admin/orgs` (a page of every organization, by slug, with its member count) and
 * `GET /admin/orgs/:id` (one with a page of its members, `?cursor=` the `next` of the previous one, each with the name and e-mail the user directory
 * has): for the app's admins, when the admin plugin is on.
 */
export function adminOrgRouteList(deps: AdminOrgDeps): PluginRoute[] {
  const asAdmin = asyncHandler(async (req, res, next) => {
    const admin = deps.admin();
    if (admin === undefined) throw new AuthError('not_found', 'the admin plugin is not on');
    const claims = await deps.authenticator.tokenClaims(req, res);
    if (!admin.isAdmin(claims.user as User, claims)) throw new AuthError('forbidden', 'admin access required');
    next();
  });
  const list: PluginRoute = {
    method: 'GET',
    path: '/admin/orgs',
    handler: [
      asAdmin,
      asyncHandler(async (req, res) => {
        const cursor = pageCursor(req.query.cursor, 512);
        if (deps.store.list === undefined) throw new AuthError('not_found', 'this organization store cannot list organizations');
        const page = await deps.store.list({ cursor, limit: PAGE });
        const orgs = await Promise.all(page.orgs.map(async (o) => ({ id: o.id, name: o.name, slug: o.slug, created: o.created, members: await deps.store.countMembers(o.id) })));
        sendJson(res, 200, { orgs, next: page.next });
      }),
    ],
  };
  const one: PluginRoute = {
    method: 'GET',
    path: '/admin/orgs/:id',
    handler: [
      asAdmin,
      asyncHandler(async (req, res) => {
        const org = await deps.store.get(String(req.params.id));
        if (org === undefined) throw new AuthError('not_found', 'no such organization');
        const cursor = pageCursor(req.query.cursor, 2048);
        const page = await deps.store.members(org.id, { cursor, limit: MEMBERS_PAGE });
        const members = await Promise.all(
          page.members.map(async (m) => {
            const user = await deps.users.get(m.userId);
            return { userId: m.userId, name: user?.name ?? m.userId, email: user?.email, roles: rolesOf(org, m), joined: m.joined };
          }),
        );
        sendJson(res, 200, { id: org.id, name: org.name, slug: org.slug, created: org.created, members, next: page.next, invitations: (await deps.store.invitations(org.id)).length });
      }),
    ],
  };
  return [list, one];
}
