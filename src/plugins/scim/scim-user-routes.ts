import type { Request, Response } from 'express';
import type { ServerResponse } from 'node:http';
import type { PluginRoute, RouteMethod } from '../../plugin-kit/plugin-api';
import { listResponse, MAX_RESULTS } from './scim-discovery';
import { isScimStatus, ScimError, sendScim, sendScimError } from './scim-errors';
import { readPatch } from './scim-patch';
import type { ScimUsers } from './scim-users';
import { userResource } from './user-resource';
import { project, projectionOf, type Projection } from './scim-projection';
import { ifMatchOf as ifMatch, notModified, versionTag } from './versions';
import type { ScimUser } from './user-schema';

/** The largest SCIM request body (a user with its addresses, a PATCH of a group's members). */
export const SCIM_BODY_LIMIT = 256 * 1024;

/** A SCIM route's handler: the organization of the request's token is known; what it returns is answered with 200 (or `status`). */
export type ScimHandler = (req: Request, res: Response, orgId: string, maker: string) => Promise<unknown>;

/** Answers a refused body, a 405 or a handler's error in RFC 7644's shape. */
export function answerScimError(res: ServerResponse, status: number, message: string, err: unknown): void {
  sendScimError(res, err !== undefined && (err instanceof ScimError || (err as { status?: unknown }).status !== undefined) ? err : new ScimError(isScimStatus(status) ? status : 500, message));
}

/** `startIndex` (1-based, below 1 counts as 1) and `count` (0 to 100: more is 100) of a list request. */
export function pageOf(query: Request['query']): { startIndex: number; count: number } {
  const number = (value: unknown, name: string, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value)) throw new ScimError(400, `${name} must be a whole number`, 'invalidValue');
    return Number(value);
  };
  return { startIndex: Math.max(1, number(query.startIndex, 'startIndex', 1)), count: Math.min(MAX_RESULTS, Math.max(0, number(query.count, 'count', MAX_RESULTS))) };
}

/** The request's filter, when it gives one. */
export function filterOf(query: Request['query']): string | undefined {
  if (query.filter === undefined) return undefined;
  if (typeof query.filter !== 'string') throw new ScimError(400, 'give filter once, as text', 'invalidFilter');
  return query.filter;
}

/** The request's JSON object body, else a SCIM 400. */
export function scimBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0) throw new ScimError(400, 'the body must be a JSON object', 'invalidSyntax');
  return body as Record<string, unknown>;
}

type GroupsOf = Map<string, Array<{ value: string; display: string }>>;

/** The user as an answer: its resource (as `projection` shows it), with `ETag` and (on a create) `Location`. */
function sendUser(res: Response, status: number, user: ScimUser, base: string, groups: GroupsOf, projection: Projection = {}): void {
  const resource = project(userResource(user, base, groups.get(user.id)), projection);
  res.setHeader('ETag', versionTag(user.version));
  if (status === 201) res.setHeader('Location', (resource.meta as { location: string }).location);
  sendScim(res, status, resource);
}

/** What the user routes need: the users, the SCIM base URL of a request, and the wrapper that finds the token's organization. */
export interface ScimUserRouteDeps {
  users: ScimUsers;
  /** The groups of each user of an organization. */
  groups(orgId: string): Promise<GroupsOf>;
  base(req: Request): string;
  route(method: RouteMethod, path: string, handler: ScimHandler): PluginRoute;
}

/** `GET`, `POST /Users`; `GET`, `PUT`, `PATCH`, `DELETE /Users/:id`, each on the token's organization only. */
export function scimUserRoutes(path: string, deps: ScimUserRouteDeps): PluginRoute[] {
  const { users, base, route, groups } = deps;
  const id = (req: Request): string => String(req.params.id ?? '');
  const answered = async (res: Response, status: number, user: ScimUser, req: Request): Promise<undefined> =>
    void sendUser(res, status, user, base(req), await groups(user.orgId), projectionOf(req.query));
  return [
    route('GET', path, async (req, _res, orgId) => {
      const projection = projectionOf(req.query);
      const page = await users.list(orgId, { filter: filterOf(req.query), ...pageOf(req.query) });
      const of = await groups(orgId);
      return listResponse(
        page.items.map((u) => project(userResource(u, base(req), of.get(u.id)), projection)),
        page.total,
        page.startIndex,
      );
    }),
    route('POST', path, async (req, res, orgId, maker) => answered(res, 201, await users.create(orgId, scimBody(req), maker), req)),
    route('GET', `${path}/:id`, async (req, res, orgId) => {
      const user = await users.get(orgId, id(req));
      if (notModified(req, res, user.version)) return undefined;
      return answered(res, 200, user, req);
    }),
    route('PUT', `${path}/:id`, async (req, res, orgId, maker) => answered(res, 200, await users.replace(orgId, id(req), scimBody(req), ifMatch(req), maker), req)),
    route('PATCH', `${path}/:id`, async (req, res, orgId, maker) => answered(res, 200, await users.patch(orgId, id(req), readPatch(scimBody(req)), ifMatch(req), maker), req)),
    route('DELETE', `${path}/:id`, async (req, res, orgId, maker) => {
      await users.delete(orgId, id(req), maker, ifMatch(req));
      res.status(204).end();
    }),
  ];
}
