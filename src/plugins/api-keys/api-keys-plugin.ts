import { API_KEY_MESSAGES } from './api-key-messages';
import { AuthError, configError } from '../../plugin-kit/helpers';
import type { RateLimitRule } from '../../plugin-kit/state';
import { announceGuards } from '../../plugin-kit/sessions';
import { type AuthPlugin, apiKeyOf, whenOrgDeleted } from '../../plugin-kit/plugin-api';
import type { RequestHandler } from 'express';
import { apiKeyRouteList } from './api-key-routes';
import { ApiKeys, orgKeyHolder } from './api-key-service';

/** Options of the API keys plugin: `apiKeys({ ... })`. */
export interface ApiKeysOptions {
  /** The most keys one user may hold. @default 20 */
  maxKeysPerUser?: number | undefined;
  /** The most keys one organization may hold (with the organizations plugin). @default 20 */
  maxKeysPerOrg?: number | undefined;
  /** The longest `expiresIn` a key may ask, in ms. @default no limit (keys may not expire) */
  maxTtl?: number | undefined;
  /** Requests one key may make (`apiKeyRequests`, counted in the state store: each request then waits for it). @default undefined (no per-key limit) */
  perKeyRateLimit?: RateLimitRule | undefined;
}

/** The error codes the plugin answers with (besides the core's). */
export const API_KEY_ERROR_CODES = ['scope_required', 'limit_reached'] as const;

declare module '../../core/middleware/middleware-set' {
  interface Middleware {
    /**
     * As `m.auth`; a request through an API key passes only when the key holds every one of
     * `scopes` (a session holds them all) (API keys plugin). 403 `scope_required`.
     */
    scopes(...scopes: string[]): RequestHandler;
  }
}
announceGuards('apiKeys()', ['scopes']);

declare module '../../base/errors' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the API keys' reasons join the registry
  interface AuthErrorReasons extends Record<(typeof API_KEY_ERROR_CODES)[number], true> {}
}

/** The API keys plugin, with its service once `createAuth` has set it up. */
export interface ApiKeysPlugin extends AuthPlugin {
  /** Keys for the app's own code; throws before `createAuth` ran. */
  readonly service: ApiKeys;
}

/**
 * API keys for scripts, services and integrations: `createAuth({ plugins: [apiKeys()] })`. Routes
 * under `/api-keys` (and `/orgs/:org/api-keys` with the organizations plugin); `Authorization:
 * Bearer agk_…` accepted by `m.auth`; `m.scopes(...)`; `apiKeyOf(req)`.
 */
export function apiKeys(options: ApiKeysOptions = {}): ApiKeysPlugin {
  if (options === null || typeof options !== 'object') throw configError('apiKeys() takes an options object (or nothing)');
  const maxKeysPerUser = options.maxKeysPerUser ?? 20;
  const maxKeysPerOrg = options.maxKeysPerOrg ?? 20;
  for (const [name, value] of [
    ['maxKeysPerUser', maxKeysPerUser],
    ['maxKeysPerOrg', maxKeysPerOrg],
  ] as const)
    if (!Number.isInteger(value) || value < 1 || value > 1000) throw configError(`apiKeys.${name} must be a whole number from 1 to 1000`);
  if (options.maxTtl !== undefined && (!Number.isFinite(options.maxTtl) || options.maxTtl < 60_000)) throw configError('apiKeys.maxTtl must be at least 60000 ms');
  let service: ApiKeys | undefined;
  return {
    name: 'api-keys',
    errorCodes: API_KEY_ERROR_CODES,
    messages: API_KEY_MESSAGES,
    optional: ['organizations'],
    rateLimits: { apiKeyRoutesPerUser: { limit: 60, windowMs: 60_000 }, ...(options.perKeyRateLimit ? { apiKeyRequests: options.perKeyRateLimit } : {}) },
    get service(): ApiKeys {
      if (service === undefined) throw new Error('apiKeys(): the service exists once createAuth({ plugins: [...] }) has set the plugin up');
      return service;
    },
    setup(ctx) {
      const keys = new ApiKeys(ctx, { maxKeysPerUser, maxKeysPerOrg, maxTtlMs: options.maxTtl, perKeyLimit: options.perKeyRateLimit !== undefined });
      service = keys;
      // A banned owner's keys stop, and an unbanned one's work again, on every instance (announced where it happened).
      for (const type of ['user.banned', 'user.unbanned'] as const) ctx.events.on(type, (e) => (e.userId ? keys.announce(`user:${e.userId}`) : undefined));
      // A deleted organization's keys go (they stop at once anyway: the organization is checked with them).
      whenOrgDeleted(ctx.events, 'api-keys:org-deleted', (org) => keys.removeHeldBy(orgKeyHolder(org)));
      // A person the organization's directory deprovisioned loses the keys it made there, on every instance.
      ctx.events.on(
        'org.member.deprovisioned',
        async (e) => {
          if (e.userId !== undefined && typeof e.data.org === 'string') await keys.removeMadeFor(e.userId, e.data.org);
        },
        { retryAs: 'api-keys:remove-made-for' },
      );
      return {
        routes: apiKeyRouteList({ keys, authenticator: ctx.authenticator, orgs: keys.orgs, rateLimit: (name, id) => ctx.rateLimit(name, id) }),
        bearer: keys,
        guards: {
          scopes:
            (...wanted: string[]) =>
            (req) => {
              const use = apiKeyOf(req);
              if (use === undefined || wanted.every((s) => use.scopes.includes(s))) return undefined;
              return new AuthError('forbidden', `this API key needs the scope ${wanted.join(' and ')}`, { reason: 'scope_required' });
            },
        },
        userEvents: {
          userDeleted: (userId) => keys.announce(`user:${userId}`),
          credentialsReset: (userId) => keys.removeAll(userId),
          userIdChanged: (from, to) => keys.userIdChanged(from, to),
        },
        services: { apiKeys: keys },
        close: () => keys.close(),
      };
    },
  };
}
