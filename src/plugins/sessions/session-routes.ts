import type { Request, Response } from 'express';
import type { PluginAuthenticator, PluginEvents, PluginSessions, PluginTokens, PluginRoute } from '../../plugin-kit/plugin-api';
import { AuthError, hasUnusableChars, requestClient } from '../../plugin-kit/basics';
import { asyncHandler, sendJson } from '../../plugin-kit/http';
import { stateCall } from '../../plugin-kit/state';
import { isAdmin, type User, jtiHash } from '../../plugin-kit/sessions';

/** What the session routes need from the auth service. */
export interface SessionRouteDeps {
  authenticator: PluginAuthenticator;
  sessions: PluginSessions;
  /** Counts a hit against a rate limit (`sessionsPerUser`). */
  rateLimit(name: string, identity: string): Promise<void>;
  tokens: PluginTokens;
  /** Records `session.revoked`. */
  events: PluginEvents;
}

/** Shown session ids are random base64url or hex of 16 to 64 characters. */
const SESSION_ID = /^[A-Za-z0-9_-]{16,64}$/;

/** The caller of a session route: logged in with a token (basic auth has no session), within its rate limit. */
async function caller(deps: SessionRouteDeps, req: Request, res: Response): Promise<{ user: User; h: string | undefined; jti: string | undefined }> {
  const claims = await deps.authenticator.tokenClaims(req, res);
  const user = claims.user as User;
  await stateCall(() => deps.rateLimit('sessionsPerUser', user.id));
  const jti = typeof claims.jti === 'string' && claims.jti !== '' ? claims.jti : undefined;
  return { user, jti, h: jti === undefined ? undefined : jtiHash(jti) };
}

/** Records `session.revoked` for sessions of `userId` ended by the caller (an admin's own id as actor when it is another user's). */
function revokedEvent(deps: SessionRouteDeps, req: Request, me: { user: User }, userId: string, count: number, which: 'one' | 'others' | 'all', h?: string): void {
  if (count === 0) return;
  const actor = userId === me.user.id ? { kind: 'user' as const, id: userId } : { kind: 'admin' as const, id: me.user.id };
  deps.events.emit({ type: 'session.revoked', userId, actor, ...(h ? { session: h } : {}), data: { which, count } }, requestClient(req));
}

/**
 * `GET /sessions` (the caller's sessions, the current one marked), `POST /sessions/<id>/revoke`,
 * `POST /sessions/revoke-others`, `POST /sessions/revoke-all` (`{"user": id}` lets an admin end
 * another user's sessions). A user sees and ends only his own; ending the current session clears
 * its cookies. The router in front refuses cross-site writes, and the token read checks XSRF.
 */
export function sessionRouteList(deps: SessionRouteDeps): PluginRoute[] {
  return [
    {
      method: 'GET',
      path: '/sessions',
      handler: asyncHandler(async (req, res) => {
        const me = await caller(deps, req, res);
        const listed = await stateCall(() => deps.sessions.listWithHashes(me.user.id));
        sendJson(
          res,
          200,
          listed.map(({ h, session }) => ({ ...session, current: h === me.h })),
        );
      }),
    },

    {
      method: 'POST',
      path: '/sessions/revoke-others',
      handler: asyncHandler(async (req, res) => {
        const me = await caller(deps, req, res);
        const revoked = await stateCall(() => deps.sessions.revokeAll(me.user.id, { except: me.jti }));
        revokedEvent(deps, req, me, me.user.id, revoked, 'others');
        sendJson(res, 200, { revoked });
      }),
    },

    {
      method: 'POST',
      path: '/sessions/revoke-all',
      handler: asyncHandler(async (req, res) => {
        const me = await caller(deps, req, res);
        const body = (req as { body?: unknown }).body;
        const given = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).user : undefined;
        if (given !== undefined && (typeof given !== 'string' || given === '' || given.length > 256 || hasUnusableChars(given))) {
          throw new AuthError('bad_request', 'user must be a user id');
        }
        const target = given ?? me.user.id;
        if (target !== me.user.id && !isAdmin(me.user)) throw new AuthError('forbidden', "only an admin may end another user's sessions");
        const revoked = await stateCall(() => deps.sessions.revokeAll(target));
        revokedEvent(deps, req, me, target, revoked, 'all');
        if (target === me.user.id) deps.tokens.reset(res);
        sendJson(res, 200, { revoked });
      }),
    },

    {
      method: 'POST',
      path: '/sessions/:id/revoke',
      handler: asyncHandler(async (req, res) => {
        const id = String(req.params.id);
        if (!SESSION_ID.test(id)) throw new AuthError('bad_request', 'malformed session id');
        const me = await caller(deps, req, res);
        const h = await stateCall(() => deps.sessions.revokeById(me.user.id, id));
        if (h === undefined) throw new AuthError('not_found', 'no such session');
        revokedEvent(deps, req, me, me.user.id, 1, 'one', h);
        if (h === me.h) deps.tokens.reset(res);
        sendJson(res, 200, { revoked: 1 });
      }),
    },
  ];
}
