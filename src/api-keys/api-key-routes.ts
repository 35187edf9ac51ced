import type { Request, Response, Router } from 'express';
import { AuthError } from '../errors';
import { asyncHandler } from '../internal/async-handler';
import { sendJson } from '../internal/http';
import { objectBody, onlyMethods } from '../internal/router-shell';
import { hasUnusableChars } from '../internal/text';
import type { Authenticator } from '../middleware/authenticator';
import type { User } from '../token/user';
import type { ApiKeys } from './api-keys';

const SCOPE = /^[A-Za-z0-9_.:-]{1,64}$/;

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 100 || hasUnusableChars(value)) throw new AuthError('bad_request', 'name is required: 1 to 100 characters');
  return value.trim();
}

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

/**
 * `POST /api-keys {name, scopes?, expiresIn?}` (a fresh login through the session cookie: a key
 * outlives the session), `GET /api-keys`, `PATCH /api-keys/:id {name}`, `DELETE /api-keys/:id`.
 * Always the caller's own keys: an owner, user or userId in the body or the query is ignored. A key
 * never reaches these routes (they read the session token only).
 */
export function addApiKeyRoutes(router: Router, deps: { keys: ApiKeys; authenticator: Authenticator; rateLimit(name: string, id: string): Promise<void> }): void {
  const { keys, authenticator } = deps;
  const me = async (req: Request, res: Response, fresh: boolean): Promise<User> => {
    const claims = fresh ? await authenticator.stepUpClaims(req, res) : await authenticator.tokenClaims(req, res);
    const user = claims.user as User;
    await deps.rateLimit('apiKeyRoutesPerUser', user.id);
    return user;
  };
  const methods = (path: string, allowed: string): void => onlyMethods(router, path, allowed);

  router.post(
    '/api-keys',
    asyncHandler(async (req, res) => {
      const user = await me(req, res, true);
      const body = objectBody(req);
      const made = await keys.create(user, { name: nameOf(body.name), scopes: scopesOf(body.scopes), expiresIn: expiresInOf(body.expiresIn) });
      res.setHeader('Cache-Control', 'no-store');
      sendJson(res, 201, made);
    }),
  );
  router.get(
    '/api-keys',
    asyncHandler(async (req, res) => sendJson(res, 200, await keys.list((await me(req, res, false)).id))),
  );
  methods('/api-keys', 'GET, POST');
  router.patch(
    '/api-keys/:id',
    asyncHandler(async (req, res) => {
      const user = await me(req, res, false);
      sendJson(res, 200, await keys.rename(user.id, idOf(req), nameOf(objectBody(req).name)));
    }),
  );
  router.delete(
    '/api-keys/:id',
    asyncHandler(async (req, res) => {
      const user = await me(req, res, false);
      await keys.remove(user, idOf(req));
      sendJson(res, 200, { status: 'deleted' });
    }),
  );
  methods('/api-keys/:id', 'PATCH, DELETE');
}
