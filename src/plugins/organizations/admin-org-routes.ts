import type { Router } from 'express';
import { AuthError } from '../../core/errors';
import type { User } from '../../core/token/user';
import { asyncHandler } from '../../internal/async-handler';
import { sendJson } from '../../internal/http';
import type { AdminAuthority } from '../../plugin-api/admin-authority';
import type { PluginAuthenticator, PluginUsers } from '../../plugin-api/core-api';
import type { OrgStore } from './org-store';

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

/**
 * `GET /admin/orgs` (a page of every organization, by slug, with its member count) and
 * `GET /admin/orgs/:id` (one with its members, each with the name and e-mail the user directory
 * has): for the app's admins, when the admin plugin is on.
 */
export function addAdminOrgRoutes(router: Router, deps: AdminOrgDeps): void {
  const asAdmin = asyncHandler(async (req, res, next) => {
    const admin = deps.admin();
    if (admin === undefined) throw new AuthError('not_found', 'the admin plugin is not on');
    const claims = await deps.authenticator.tokenClaims(req, res);
    if (!admin.isAdmin(claims.user as User, claims)) throw new AuthError('forbidden', 'admin access required');
    next();
  });
  router.get(
    '/admin/orgs',
    asAdmin,
    asyncHandler(async (req, res) => {
      const cursor = req.query.cursor;
      if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length > 512)) throw new AuthError('bad_request', 'cursor must be the next of the previous page');
      if (deps.store.list === undefined) throw new AuthError('not_found', 'this organization store cannot list organizations');
      const page = await deps.store.list({ cursor, limit: PAGE });
      sendJson(res, 200, { orgs: page.orgs.map((o) => ({ id: o.id, name: o.name, slug: o.slug, created: o.created, members: o.members.length })), next: page.next });
    }),
  );
  router.get(
    '/admin/orgs/:id',
    asAdmin,
    asyncHandler(async (req, res) => {
      const org = await deps.store.get(String(req.params.id));
      if (org === undefined) throw new AuthError('not_found', 'no such organization');
      const members = await Promise.all(
        org.members.map(async (m) => {
          const user = await deps.users.get(m.userId);
          return { userId: m.userId, name: user?.name ?? m.userId, email: user?.email, roles: m.roles, joined: m.joined };
        }),
      );
      sendJson(res, 200, { id: org.id, name: org.name, slug: org.slug, created: org.created, members, invitations: (await deps.store.invitations(org.id)).length });
    }),
  );
}
