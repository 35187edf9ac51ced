import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { configError } from '../base/errors';
import { clientIp } from '../internal/client-ip';
import { sendJson } from '../internal/http';
import type { PluginRoute, RouteMethod } from '../plugin-api/plugin';

/** One claimed route: who added it, and how it is matched. */
export interface ClaimedRoute {
  /** The plugin (or `core`) that added it. */
  owner: string;
  method: RouteMethod;
  path: string;
}

/** What a route given as data declared for itself beyond its handlers. */
interface OwnSettings {
  method: RouteMethod;
  pattern: RegExp;
  limit?: number | undefined;
  answerError?: PluginRoute['answerError'];
}

const ROUTER_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'all'] as const;

/** How Express matches a path by default (not case-sensitive, a trailing slash optional), with parameter names left out. */
function matchKey(path: string): string {
  return (
    path
      .toLowerCase()
      .replace(/:[A-Za-z0-9_]+/g, ':')
      .replace(/\/+$/, '') || '/'
  );
}

/** A path as Express matches it (parameters one segment each, any case, a trailing slash optional). */
function pathPattern(path: string): RegExp {
  const body = path
    .replace(/\/+$/, '')
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part, i) => (i % 2 === 1 ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}/?$`, 'i');
}

/**
 * The routes of the auth router by method and path, and who claimed each: a route claimed by two
 * owners (the same method, or `ALL` beside any method, on the same path) is a start-up error
 * naming both, so one plugin never silently shadows another's route.
 */
export class RouteTable {
  private readonly claims = new Map<string, ClaimedRoute>();
  private readonly list: ClaimedRoute[] = [];
  /** The paths of routes given as data, by match key: other methods there answer 405. */
  private readonly declared = new Map<string, string>();
  /** Routes with a body limit or an error answer of their own: method, how their path matches, what they declared. */
  private readonly own: OwnSettings[] = [];

  /** @param core - the routes the core's router has before the plugins' (`/logout`...). */
  constructor(core: ReadonlyArray<{ method: RouteMethod; path: string }> = []) {
    for (const route of core) this.claim('core', route.method, route.path);
  }

  /** Every claimed route, in the order claimed. */
  routes(): readonly ClaimedRoute[] {
    return this.list;
  }

  /** Records that `owner` answers `method path`. @throws AuthError (`config`) when another owner has it. */
  claim(owner: string, method: RouteMethod, path: string): void {
    const key = matchKey(path);
    const clashes = method === 'ALL' ? [...this.claims.values()].filter((c) => matchKey(c.path) === key) : [this.claims.get(`${method} ${key}`), this.claims.get(`ALL ${key}`)];
    const other = clashes.find((c) => c !== undefined && c.owner !== owner);
    if (other !== undefined) {
      const who = (name: string): string => (name === 'core' ? 'the core' : `plugin ${name}`);
      throw configError(`${who(other.owner)} and ${who(owner)} both claim ${method === 'ALL' || other.method === 'ALL' ? 'the path' : method} ${path}; one route has one owner`);
    }
    const route = { owner, method, path };
    if (!this.claims.has(`${method} ${key}`)) this.claims.set(`${method} ${key}`, route);
    this.list.push(route);
  }

  /** Adds a plugin's routes given as data: each claimed, its rate limit (per client IP) counted before its handlers. */
  add(router: Router, owner: string, routes: readonly PluginRoute[], rateLimit: (name: string, identity: string) => Promise<void>): void {
    for (const route of routes) {
      this.claim(owner, route.method, route.path);
      const handlers = Array.isArray(route.handler) ? [...(route.handler as readonly RequestHandler[])] : [route.handler as RequestHandler];
      const limit = route.rateLimit;
      if (limit !== undefined)
        handlers.unshift((req: Request, _res: Response, next: NextFunction) => {
          rateLimit(limit, clientIp(req)).then(() => next(), next);
        });
      if (route.bodyLimit !== undefined || route.answerError !== undefined)
        this.own.push({ method: route.method, pattern: pathPattern(route.path), limit: route.bodyLimit, answerError: route.answerError?.bind(route) });
      router[route.method === 'ALL' ? 'all' : (route.method.toLowerCase() as Lowercase<Exclude<RouteMethod, 'ALL'>>)](route.path, ...handlers);
      this.declared.set(matchKey(route.path), route.path);
    }
  }

  /** The body limit of the route a request goes to, when it declared one. */
  bodyLimitFor(method: string, path: string): number | undefined {
    return this.ownOf(method, path, 'limit');
  }

  /** How the route a request goes to answers errors, when it declared its own way (any method on its path: a 405 too). */
  errorAnswerFor(method: string, path: string): PluginRoute['answerError'] {
    return this.ownOf(method, path, 'answerError') ?? this.own.find((o) => o.answerError !== undefined && o.pattern.test(path))?.answerError;
  }

  private ownOf<K extends 'limit' | 'answerError'>(method: string, path: string, what: K): OwnSettings[K] {
    return this.own.find((o) => o[what] !== undefined && (o.method === 'ALL' || o.method === method.toUpperCase()) && o.pattern.test(path))?.[what];
  }

  /**
   * After every plugin's routes: another method on a path of a route given as data answers 405
   * with `Allow` (the methods claimed there) and `{"error": "use ...", "code": "method_not_allowed"}`.
   */
  finish(router: Router): void {
    for (const [key, path] of this.declared) {
      const methods = [...new Set(this.list.filter((c) => matchKey(c.path) === key).map((c) => c.method))];
      if (methods.includes('ALL')) continue;
      const allow = methods.join(', ');
      router.all(path, (req: Request, res: Response) => {
        res.setHeader('Allow', allow);
        const own = this.errorAnswerFor(req.method, req.path);
        if (own !== undefined) return own(res, 405, `use ${allow}`, undefined);
        sendJson(res, 405, { error: `use ${allow}`, code: 'method_not_allowed' });
      });
    }
  }

  /**
   * The router as a plugin that adds its routes by calling methods (`router.get(path, ...)`) gets
   * it: each route is claimed as if given as data, then added to the real router.
   */
  claiming(router: Router, owner: string): Router {
    const facade = Object.create(router) as Router;
    for (const name of ROUTER_METHODS) {
      const method = name.toUpperCase() as RouteMethod;
      // eslint-disable-next-line no-restricted-syntax -- Express's own method names
      (facade as unknown as Record<string, unknown>)[name] = (path: unknown, ...handlers: unknown[]): Router => {
        for (const one of Array.isArray(path) ? path : [path]) if (typeof one === 'string') this.claim(owner, method, one);
        (router[name] as (...args: unknown[]) => unknown)(path, ...handlers);
        return facade;
      };
    }
    facade.use = ((...args: unknown[]): Router => {
      (router.use as (...a: unknown[]) => unknown)(...args);
      return facade;
    }) as Router['use'];
    return facade;
  }
}
