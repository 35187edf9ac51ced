import type { Request, Response } from 'express';
import { AuthError, param, isReservedName } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';
import { asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import { OWNER, type OrgAuthority, type PluginRoute } from '../../plugin-kit/plugin-api';
import type { ScimGroups } from './scim-groups';
import { SCIM_PERMISSION } from './scim-tokens';

/** The most group names an organization maps to roles. */
export const MAX_GROUP_ROLES = 100;

/** `{ groupRoles: { "<group name>": "<role>" } }` of a request, checked for shape. */
function groupRolesOf(body: Record<string, unknown>): Record<string, string> {
  const map = body.groupRoles;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new AuthError('bad_request', 'groupRoles must be an object of group name to role');
  const entries = Object.entries(map as Record<string, unknown>);
  if (entries.length > MAX_GROUP_ROLES) throw new AuthError('bad_request', `groupRoles may map at most ${MAX_GROUP_ROLES} groups`);
  for (const [name, role] of entries)
    if (name === '' || name.length > 256 || isReservedName(name) || typeof role !== 'string' || role === '' || role.length > 32)
      throw new AuthError('bad_request', 'each of groupRoles maps a group name (1 to 256 characters) to a role name');
    else if (role === OWNER) throw new AuthError('bad_request', 'a directory never makes owners: map groups to other roles');
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * `GET` and `PUT /orgs/:org/scim/settings`: how the organization's directory groups map to roles,
 * for its admins (`org:update`; a change needs a fresh login and only roles the admin may grant).
 * With a mapping, the directory decides its users' roles: a user in no mapped group is a `member`.
 */
export function scimSettingsRoutes(deps: { groups: ScimGroups; orgs: OrgAuthority; caller: (req: Request, res: Response, fresh: boolean) => Promise<User> }): PluginRoute[] {
  const path = '/orgs/:org/scim/settings';
  const view = (s: { groupRoles: Record<string, string>; changedBy: string; changed: number }): Record<string, unknown> => ({
    groupRoles: s.groupRoles,
    changedBy: s.changedBy || null,
    changed: s.changed || null,
  });
  return [
    {
      method: 'GET',
      path,
      handler: asyncHandler(async (req, res) => {
        const user = await deps.caller(req, res, false);
        const { org } = await deps.orgs.authorize(param(req.params.org, 'organization'), user.id, SCIM_PERMISSION);
        sendJson(res, 200, view(await deps.groups.settings(org.id)));
      }),
    },
    {
      method: 'PUT',
      path,
      handler: asyncHandler(async (req, res) => {
        const user = await deps.caller(req, res, true);
        const groupRoles = groupRolesOf(objectBody(req));
        const { org, roles } = await deps.orgs.authorize(param(req.params.org, 'organization'), user.id, SCIM_PERMISSION);
        deps.orgs.checkGrantable(roles, [...new Set(Object.values(groupRoles))]);
        sendJson(res, 200, view(await deps.groups.setSettings(org.id, groupRoles, user.id)));
      }),
    },
  ];
}
