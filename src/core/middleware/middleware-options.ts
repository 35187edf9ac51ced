import { configError } from '../../base/errors';
import { toFunction, type BasicAuthChecker, type MaybePromise, type UserUpdater, type Validator } from '../token/hooks';
import type { Claims } from '../token/claims';
import type { User } from '../token/user';
import type { AuthErrorHandler } from './error-handler';
import type { RefreshCache } from './refresh-cache';

/** The options of the middleware (part of `createAuth`'s options). */
export interface MiddlewareOptions {
  /** Called on every request behind `auth`; `false` rejects and clears the cookies. @default undefined */
  validator?: Validator | undefined;
  /** Used by the `updateUser` middleware. @default undefined */
  userUpdater?: UserUpdater | undefined;
  /** Enables basic auth `admin:<adminPasswd>` as an admin user. @default undefined (off) */
  adminPasswd?: string | undefined;
  /** Decides basic auth itself; `adminPasswd` is then ignored. @default undefined */
  basicAuthChecker?: BasicAuthChecker | undefined;
  /** Cache of refreshed tokens, so concurrent requests refresh a token once. @default in memory, or on `stateStore` when one is given */
  refreshCache?: RefreshCache | undefined;
  /** Answers middleware rejections instead of the default JSON body. @default undefined */
  errorHandler?: AuthErrorHandler | undefined;
}

/** {@link MiddlewareOptions} with hooks turned into functions (the refresh cache is settled by `createAuth`). */
export interface ResolvedMiddlewareOptions {
  validator: ((token: string, claims: Claims) => MaybePromise<boolean>) | undefined;
  userUpdater: ((user: User) => MaybePromise<User>) | undefined;
  adminPasswd: string | undefined;
  basicAuthChecker: BasicAuthChecker | undefined;
  errorHandler: AuthErrorHandler | undefined;
}

/** Checks {@link MiddlewareOptions}. */
export function resolveMiddlewareOptions(options: MiddlewareOptions): ResolvedMiddlewareOptions {
  if (options.basicAuthChecker !== undefined && typeof options.basicAuthChecker !== 'function') throw configError('options.basicAuthChecker must be a function');
  return {
    validator: toFunction<[string, Claims], MaybePromise<boolean>>(options.validator, 'validate'),
    userUpdater: toFunction<[User], MaybePromise<User>>(options.userUpdater, 'update'),
    adminPasswd: options.adminPasswd === '' ? undefined : options.adminPasswd,
    basicAuthChecker: options.basicAuthChecker,
    errorHandler: options.errorHandler,
  };
}
