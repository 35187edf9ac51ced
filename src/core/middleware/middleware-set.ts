import { logTo } from '../../base/logger';
import type { Translations } from '../i18n/translations';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AuthError, configError } from '../../base/errors';
import { StoreUnavailableError } from '../../internal/guarded-store';
import { getUser, setRequestUser } from '../token/request-user';
import { getRole, isAdmin, type User } from '../token/user';
import type { Authenticator, AuthenticatorOptions, GuardFactory, RequestCheck, RequestLogin } from './authenticator';
import { rejectRequest } from './error-handler';

/**
 * The Express middleware returned by `auth.middleware()`. Plugins add their guards from their
 * folders (`declare module 'authgate' { interface Middleware { org(...roles: string[]): RequestHandler } }`
 * beside the plugin's `guards`): `m.org(...)` of the organizations plugin, `m.scopes(...)` of the API keys plugin.
 */
export interface Middleware {
  /** Lets the request through only with a valid login; 401 otherwise. */
  auth: RequestHandler;
  /** Attaches the user when there is one; never rejects. */
  trace: RequestHandler;
  /** Lets through only users with `attrs.admin === true`; 401 or 403 otherwise. */
  admin: RequestHandler;
  /** Lets through only users whose role is one of `roles` (case-insensitive); 401 or 403 otherwise. */
  rbac(...roles: string[]): RequestHandler;
  /** Replaces the request's user with `userUpdater(user)`; needs the `userUpdater` option. */
  readonly updateUser: RequestHandler;
  /** Refuses state-changing requests a browser sent from another site (403), per `trustedOrigins`. */
  crossOrigin: RequestHandler;
}

/** Which plugin offers which guard, as the plugins' modules announced it: for the message when the app uses a guard without its plugin. */
const guardOwners = new Map<string, string>();

/**
 * Announces, when a plugin's module loads, that its plugin offers these guards (`m.org`), so that
 * using one while the plugin is not in `plugins` fails at start-up naming the plugin to add.
 * @param plugin - how the app adds it, e.g. `organizations({...})`.
 */
export function announceGuards(plugin: string, names: readonly string[]): void {
  for (const name of names) guardOwners.set(name, plugin);
}

/** Builds the middleware set on an {@link Authenticator}, with the guards plugins contribute by name (`org`, `can`); refusals speak the request's language with `translations`. */
export function createMiddleware(authenticator: Authenticator, options: AuthenticatorOptions, guards: ReadonlyMap<string, GuardFactory> = new Map(), translations?: Translations): Middleware {
  const reject = (req: Request, res: Response, err: AuthError): void => rejectRequest(req, res, err, options.errorHandler, translations);
  /** Whether a failure was answered (an AuthError, a store that failed: 503); else it goes to `next`. */
  const asAuthError = (caught: unknown): unknown => {
    if (!(caught instanceof StoreUnavailableError)) return caught;
    logTo(options.logger).error('{error}', { error: caught.message });
    return new AuthError('unavailable', 'a store is unavailable, try again', { cause: caught });
  };

  /** Answers a failure: an AuthError (a store that failed: 503) as a refusal, anything else to `next`. */
  const fail = (req: Request, res: Response, next: NextFunction, caught: unknown): void => {
    const err = asAuthError(caught);
    if (err instanceof AuthError) reject(req, res, err);
    else next(err);
  };
  const finish = (req: Request, res: Response, next: NextFunction, user: User, refusal: AuthError | undefined): void => {
    if (refusal) return reject(req, res, refusal);
    setRequestUser(req, user);
    next();
  };
  /** Runs the guard's check, if it has one; no promise and no closure when it decides at once (the usual case: a cached membership). */
  const judge = (check: RequestCheck | undefined, req: Request, res: Response, next: NextFunction, login: RequestLogin): void => {
    if (check === undefined) return finish(req, res, next, login.user, undefined);
    let verdict: ReturnType<RequestCheck>;
    try {
      verdict = check(req, login.user, login.claims);
    } catch (err) {
      return fail(req, res, next, err);
    }
    if (!(verdict instanceof Promise)) return finish(req, res, next, login.user, verdict);
    verdict.then(
      (refusal) => finish(req, res, next, login.user, refusal),
      (err: unknown) => fail(req, res, next, err),
    );
  };

  /**
   * Every guard of the set, the core's and the plugins': the request's login (from memory when it
   * can be decided at once), then the guard's check. `m.trace` lets a request without a login through.
   */
  const guard = (check: RequestCheck | undefined, required = true): RequestHandler =>
    function authgateGuard(req: Request, res: Response, next: NextFunction): void {
      const known = authenticator.loginNow(req);
      if (known !== undefined) return judge(check, req, res, next, known);
      authenticator.login(req, res).then(
        (login) => judge(check, req, res, next, login),
        (caught: unknown) => {
          if (required) return fail(req, res, next, caught);
          const err = asAuthError(caught);
          if (!(err instanceof AuthError)) return next(err);
          setRequestUser(req, undefined);
          next();
        },
      );
    };

  const middleware = {
    crossOrigin(req: Request, res: Response, next: NextFunction): void {
      if (!options.crossSite.isCrossSiteWrite(req)) return next();
      reject(req, res, new AuthError('forbidden', 'cross-site request refused', { reason: 'cross_site' }));
    },
    auth: guard(undefined),
    trace: guard(undefined, false),
    admin: guard((_req, user) => (isAdmin(user) ? undefined : new AuthError('forbidden', 'admin access required'))),
    rbac(...roles: string[]): RequestHandler {
      if (roles.length === 0) throw configError('rbac() needs at least one role');
      const wanted = new Set(roles.map((r) => r.toLowerCase()));
      return guard((_req, user) => (wanted.has(getRole(user).toLowerCase()) ? undefined : new AuthError('forbidden', 'access denied for this role')));
    },
    get updateUser(): RequestHandler {
      const updater = options.userUpdater;
      if (!updater) throw configError('m.updateUser needs the userUpdater option of createAuth()');
      return function authgateUpdateUser(req: Request, _res: Response, next: NextFunction): void {
        const { user: current } = getUser(req);
        if (current === undefined) return next();
        Promise.resolve(updater(current)).then((user) => {
          setRequestUser(req, user);
          next();
        }, next);
      };
    },
  };
  const set: Record<string, unknown> = middleware;
  for (const [name, factory] of guards) {
    if (Object.hasOwn(middleware, name)) throw configError(`a plugin offers m.${name}(), which the core has already`);
    // eslint-disable-next-line no-restricted-syntax -- the guards' names are the plugins' own, checked at start-up
    set[name] = (...args: string[]): RequestHandler => guard(factory(...args));
  }
  for (const [name, owner] of guardOwners) {
    if (Object.hasOwn(middleware, name)) continue;
    // eslint-disable-next-line no-restricted-syntax -- the guards' names are the plugins' own, checked at start-up
    set[name] = (): never => {
      throw configError(`m.${name}() needs its plugin: createAuth({ plugins: [${owner}] })`);
    };
  }
  // The plugins' guards were added above by name: the set is now what the plugins' declarations say.
  return guardAgainstAppUse(middleware as unknown as Middleware, [...guards.keys()]);
}

/**
 * `app.use(m)` (the whole set instead of `m.auth`) is an easy slip. The set is therefore a function
 * that looks like a sub-app (`handle` and `set`): Express then emits 'mount' on it at once, and
 * that throws a start-up error that says what to write instead. Called as a handler, it throws too.
 */
function guardAgainstAppUse(middleware: Middleware, pluginGuards: readonly string[]): Middleware {
  const hint = (): never => {
    const names = ['m.auth', 'm.trace', 'm.admin', 'm.rbac(...)', ...pluginGuards.map((name) => `m.${name}(...)`), 'm.updateUser'];
    throw configError(`app.use(m) got the whole middleware set; use one of ${names.join(', ')}`);
  };
  const guarded = function authgateMiddlewareSet(): never {
    return hint();
  };
  Object.defineProperties(guarded, Object.getOwnPropertyDescriptors(middleware));
  for (const key of ['handle', 'set', 'emit']) Object.defineProperty(guarded, key, { value: hint, enumerable: false });
  return guarded as unknown as Middleware;
}
