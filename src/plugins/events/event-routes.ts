import type { Request, Response } from 'express';
import { type PluginEvents, type AuthPlugin, type PluginRoute, eventQuery } from '../../plugin-kit/plugin-api';
import { asyncHandler, sendJson } from '../../plugin-kit/http';
import { stateCall } from '../../plugin-kit/state';
import type { User } from '../../plugin-kit/sessions';

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
