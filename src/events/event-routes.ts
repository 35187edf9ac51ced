import type { Request, Response } from 'express';
import type { PluginEvents } from '../plugin-api/core-api';
import { AuthError } from '../errors';
import { asyncHandler } from '../internal/async-handler';
import { sendJson } from '../internal/http';
import type { AuthPlugin, PluginRoute } from '../plugins/plugin';
import { stateCall } from '../state/state-call';
import type { User } from '../token/user';
import type { AuthEventType } from './auth-event';
import type { EventListOptions } from './event-bus';

/** Reads `cursor`, `limit`, `type` (comma-separated), `from` and `to` of a query string; 400 for a malformed one. */
export function eventQuery(req: Request): EventListOptions {
  const text = (name: string, max: number): string | undefined => {
    const value = req.query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > max) throw new AuthError('bad_request', `${name} must be given once, at most ${max} characters`);
    return value;
  };
  const number = (name: string): number | undefined => {
    const value = text(name, 20);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n)) throw new AuthError('bad_request', `${name} must be a number`);
    return n;
  };
  const types = text('type', 1000);
  return { cursor: text('cursor', 64), limit: number('limit'), from: number('from'), to: number('to'), types: types === undefined ? undefined : (types.split(',') as AuthEventType[]) };
}

/** `GET /events`: the caller's own recent activity, newest first (`cursor`, `limit`, `type`, `from`, `to`). */
export function eventRouteList(deps: { events: PluginEvents; me(req: Request, res: Response): Promise<User>; rateLimit(name: string, id: string): Promise<void> }): PluginRoute[] {
  return [
    {
      method: 'GET',
      path: '/events',
      handler: asyncHandler(async (req, res) => {
        const user = await deps.me(req, res);
        await stateCall(() => deps.rateLimit('eventsPerUser', user.id));
        sendJson(res, 200, await deps.events.list({ ...eventQuery(req), userId: user.id }));
      }),
    },
  ];
}

/** The activity route as a core plugin (always on, like the session routes). */
export function eventRoutes(): AuthPlugin {
  return {
    name: 'events',
    rateLimits: { eventsPerUser: { limit: 60, windowMs: 60_000 } },
    setup(ctx) {
      return {
        routes: eventRouteList({
          events: ctx.events,
          me: async (req, res) => (await ctx.authenticator.tokenClaims(req, res)).user as User,
          rateLimit: (name, id) => ctx.rateLimit(name, id),
        }),
      };
    },
  };
}
