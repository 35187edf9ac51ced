import type { AuthPlugin } from '../../plugin-kit/plugin-api';
import { sessionRouteList } from './session-routes';

/**
 * The session routes, a core plugin: `GET /sessions`, `POST /sessions/<id>/revoke`,
 * `POST /sessions/revoke-others`, `POST /sessions/revoke-all`, counted by `sessionsPerUser`.
 */
export function sessionRoutes(): AuthPlugin {
  return {
    name: 'sessions',
    rateLimits: { sessionsPerUser: { limit: 60, windowMs: 60_000 } },
    setup(ctx) {
      return {
        routes: sessionRouteList({ authenticator: ctx.authenticator, sessions: ctx.sessions, tokens: ctx.tokens, events: ctx.events, rateLimit: (name, id) => ctx.rateLimit(name, id) }),
      };
    },
  };
}
