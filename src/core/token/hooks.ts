import { configError } from '../../base/errors';
import type { Claims } from './claims';
import type { User } from './user';

/** A value or a promise of it: every hook may be async. */
export type MaybePromise<T> = T | Promise<T>;

/** Gives the signing secret for an audience. A function or an object with `get`. */
export type SecretReader = ((aud: string) => MaybePromise<string>) | { get(aud: string): MaybePromise<string> };

/** Changes claims whenever a token is made or refreshed. A function or an object with `update`. */
export type ClaimsUpdater = ((claims: Claims) => MaybePromise<Claims>) | { update(claims: Claims): MaybePromise<Claims> };

/** Accepts or refuses a token on every request behind `auth`. A function or an object with `validate`. */
export type Validator = ((token: string, claims: Claims) => MaybePromise<boolean>) | { validate(token: string, claims: Claims): MaybePromise<boolean> };

/** Replaces the request's user behind `updateUser`. A function or an object with `update`. */
export type UserUpdater = ((user: User) => MaybePromise<User>) | { update(user: User): MaybePromise<User> };

/**
 * Decides a basic-auth login. Return `true` to accept as `{ id: user, name: user }`, a `User` to
 * accept as that user, or `false`/`null` to refuse.
 */
export type BasicAuthChecker = (user: string, passwd: string) => MaybePromise<boolean | User | null | undefined>;

/** Turns "function or object with one method" into a plain function. */
export function toFunction<A extends unknown[], R>(hook: ((...args: A) => R) | Record<string, unknown> | undefined, method: string): ((...args: A) => R) | undefined {
  if (hook === undefined) return undefined;
  if (typeof hook === 'function') return hook;
  const fn = hook[method];
  if (typeof fn !== 'function') {
    throw configError(`hook object must have a ${method}() method`);
  }
  return (...args: A) => (fn as (...a: A) => R).apply(hook, args);
}
