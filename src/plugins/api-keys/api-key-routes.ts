import type { Request } from 'express';
import { type PluginAuthenticator, type PluginRoute, routeCaller, OWNER, rolesField, type OrgAuthority } from '../../plugin-kit/plugin-api';
import { AuthError, nameField, param } from '../../plugin-kit/helpers';
import { asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import type { User } from '../../plugin-kit/sessions';
import { orgKeyHolder, type ApiKeys, type KeyHolder } from './api-key-service';

const SCOPE = /^[A-Za-z0-9_.:-]{1,64}$/;

function scopesOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 50 || value.some((s) => typeof s !== 'string' || !SCOPE.test(s)))
    throw new AuthError('bad_request', 'scopes must be a list of at most 50 names (letters, digits, : . _ -)');
  return [...new Set(value as string[])];
}

function expiresInOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 60_000 || value > 10 * 365 * 86_400_000)
    throw new AuthError('bad_request', 'expiresIn must be a whole number of ms from 60000 (a minute) to ten years');
  return value;
}

function idOf(req: Request): string {
  const id = req.params.id;
  if (typeof id !== 'string' || !/^api_key:[A-Za-z0-9_-]{43}$/.test(id)) throw new AuthError('not_found', 'no such API key');
  return id;
}

/** Whose keys a route serves: the holder id they are kept under, and the holder a new key gets from the body. */
interface Keyring {
  holderId: string;
  newHolder(body: Record<string, unknown>): KeyHolder;
}

/** What the key routes need. */
export interface ApiKeyRouteDeps {
  keys: ApiKeys;
  authenticator: PluginAuthenticator;
  /** The organizations plugin's service, when it is on: the routes of organizations' keys. */
  orgs: OrgAuthority | undefined;
  rateLimit(name: string, id: string): Promise<void>;
}

/**
 * The caller's own keys: `POST /api-keys {name, scopes?, expiresIn?}` (a fresh login through the
 * session cookie: a key outlives the session), `GET /api-keys`, `PATCH /api-keys/:id {name}`,
 * `DELETE /api-keys/:id`; an owner, user or userId in the body or the query is ignored. With the
 * organizations plugin, the same under `/orgs/:org/api-keys` for the organization's keys, for its
 * members holding `api-key:manage` (a new key takes `roles`, default `member`, never `owner`, none
 * above the caller's). A key never reaches these routes (they read the session token only).
 */
export function apiKeyRouteList(deps: ApiKeyRouteDeps): PluginRoute[] {
  const { keys, authenticator, orgs } = deps;
  const me = routeCaller(authenticator, deps.rateLimit, 'apiKeyRoutesPerUser');

  const keyRoutes = (base: string, keyringOf: (req: Request, user: User) => Promise<Keyring>): PluginRoute[] => [
    {
      method: 'POST',
      path: base,
      handler: asyncHandler(async (req, res) => {
        const user = await me(req, res, true);
        const body = objectBody(req);
        const input = { name: nameField(body.name, 'name'), scopes: scopesOf(body.scopes), expiresIn: expiresInOf(body.expiresIn) };
        const made = await keys.create(user, input, (await keyringOf(req, user)).newHolder(body));
        res.setHeader('Cache-Control', 'no-store');
        sendJson(res, 201, made);
      }),
    },
    {
      method: 'GET',
      path: base,
      handler: asyncHandler(async (req, res) => {
        const user = await me(req, res, false);
        sendJson(res, 200, await keys.list((await keyringOf(req, user)).holderId));
      }),
    },
    {
      method: 'PATCH',
      path: `${base}/:id`,
      handler: asyncHandler(async (req, res) => {
        const user = await me(req, res, false);
        const name = nameField(objectBody(req).name, 'name');
        sendJson(res, 200, await keys.rename((await keyringOf(req, user)).holderId, idOf(req), name));
      }),
    },
    {
      method: 'DELETE',
      path: `${base}/:id`,
      handler: asyncHandler(async (req, res) => {
        const user = await me(req, res, false);
        await keys.remove(user, (await keyringOf(req, user)).holderId, idOf(req));
        sendJson(res, 200, { status: 'deleted' });
      }),
    },
  ];

  const mine = keyRoutes('/api-keys', async (_req, user) => ({ holderId: user.id, newHolder: () => user.id }));
  if (orgs === undefined) return mine;
  const organizations = keyRoutes('/orgs/:org/api-keys', async (req, user) => {
    const { org, roles: mine } = await orgs.authorize(param(req.params.org, 'organization'), user.id, 'api-key:manage');
    return {
      holderId: orgKeyHolder(org.id),
      newHolder(body) {
        const roles = rolesField(body, ['member']) as string[];
        if (roles.includes(OWNER)) throw new AuthError('bad_request', 'a key cannot be an owner of the organization');
        orgs.checkGrantable(mine, roles);
        return { org: org.id, createdBy: user.id, roles };
      },
    };
  });
  return [...mine, ...organizations];
}
