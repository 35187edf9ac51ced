import type { Request, Response } from 'express';
import type { PluginRoute } from '../../plugin-kit/plugin-api';
import { listResponse } from './scim-discovery';
import { sendScim } from './scim-errors';
import { readPatch } from './scim-patch';
import type { ScimGroups } from './scim-groups';
import { filterOf, pageOf, scimBody, type ScimUserRouteDeps } from './scim-user-routes';
import { groupResource } from './group-resource';
import type { ScimGroup } from './group-schema';
import { ifMatchOf as ifMatch, notModified, versionTag } from './versions';

/** Whether the request leaves members out (`excludedAttributes=members`, as Entra ID asks). */
function withMembers(req: Request): boolean {
  const excluded = req.query.excludedAttributes;
  return !(typeof excluded === 'string' && excluded.split(',').some((a) => a.trim().toLowerCase() === 'members'));
}

/** `GET`, `POST /Groups`; `GET`, `PUT`, `PATCH`, `DELETE /Groups/:id`, each on the token's organization only. */
export function scimGroupRoutes(path: string, groups: ScimGroups, deps: Omit<ScimUserRouteDeps, 'users' | 'groups'>): PluginRoute[] {
  const { base, route } = deps;
  const id = (req: Request): string => String(req.params.id ?? '');
  const answered = (req: Request, res: Response, status: number, group: ScimGroup): undefined => {
    const resource = groupResource(group, base(req), { members: withMembers(req) });
    res.setHeader('ETag', versionTag(group.version));
    if (status === 201) res.setHeader('Location', (resource.meta as { location: string }).location);
    sendScim(res, status, resource);
    return undefined;
  };
  return [
    route('GET', path, async (req, _res, orgId) => {
      const page = await groups.list(orgId, { filter: filterOf(req.query), ...pageOf(req.query) });
      const members = withMembers(req);
      return listResponse(
        page.items.map((g) => groupResource(g, base(req), { members })),
        page.total,
        page.startIndex,
      );
    }),
    route('POST', path, async (req, res, orgId, maker) => answered(req, res, 201, await groups.create(orgId, scimBody(req), maker))),
    route('GET', `${path}/:id`, async (req, res, orgId) => {
      const group = await groups.get(orgId, id(req));
      if (notModified(req, res, group.version)) return undefined;
      return answered(req, res, 200, group);
    }),
    route('PUT', `${path}/:id`, async (req, res, orgId, maker) => answered(req, res, 200, await groups.replace(orgId, id(req), scimBody(req), ifMatch(req), maker))),
    route('PATCH', `${path}/:id`, async (req, res, orgId, maker) => {
      const group = await groups.patch(orgId, id(req), readPatch(scimBody(req)), ifMatch(req), maker);
      // RFC 7644 lets a PATCH answer 204; Entra ID and Okta take either. The resource is sent unless its members were left out.
      return answered(req, res, 200, group);
    }),
    route('DELETE', `${path}/:id`, async (req, res, orgId, maker) => {
      await groups.delete(orgId, id(req), maker, ifMatch(req));
      res.status(204).end();
    }),
  ];
}
