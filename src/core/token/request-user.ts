import { configError } from '../../base/errors';
import type { IncomingMessage } from 'node:http';
import type { User } from './user';
import { requestSlot } from '../../internal/request-slot';

/** The request's user; `NOBODY`: seen, nobody logged in. */
const users = requestSlot<User | typeof NOBODY>('request-user-v3');
/** Stands for "seen, nobody logged in" (shared by every loaded copy). */
const NOBODY = Symbol.for('authgate.nobody');

/** Attaches the user (or the fact that there is none) to a request; used by the middleware. */
export function setRequestUser(req: IncomingMessage, user: User | undefined): void {
  users.set(req, user ?? NOBODY);
}

/**
 * Reads the user the `auth`, `trace`, `admin` or `rbac` middleware attached to the request.
 * Never throws: `{ user }` when there is one, `{ error }` otherwise.
 */
export function getUser(req: IncomingMessage): { user: User; error?: undefined } | { user?: undefined; error: string } {
  const mark = users.get(req);
  if (mark === undefined) return { error: 'no user: the route is not behind the authgate middleware' };
  if (mark === NOBODY) return { error: 'no user: not logged in' };
  return { user: mark };
}

/**
 * Returns the user the middleware attached to the request. Throws only on a wiring bug: the
 * route is not behind `auth`/`admin`/`rbac` (or is behind `trace` and nobody is logged in).
 */
export function mustGetUser(req: IncomingMessage): User {
  const mark = users.get(req);
  if (mark !== undefined && mark !== NOBODY) return mark;
  throw configError(`mustGetUser(): ${(getUser(req) as { error: string }).error}; put m.auth (or m.admin, m.rbac) before this route`);
}
