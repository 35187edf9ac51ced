import { configError } from '../errors';

/** When a revoked session stops working. */
export type RevocationCheck = 'refresh' | 'every-request';

/** Options of the session registry (part of {@link AuthOptions}). */
export interface SessionOptions {
  /**
   * `'refresh'`: a session is checked when its token is refreshed, so a revoked session ends
   * within `tokenDuration`, with no store call on requests in between. `'every-request'`: every
   * request with a user token is checked, through a per-process cache that Redis pub/sub or
   * PostgreSQL LISTEN/NOTIFY clears on every instance at once (memory and level: in-process;
   * other stores: a store read per request).
   * @default 'refresh'
   */
  revocationCheck?: RevocationCheck;
  /**
   * Tokens with no session record (made by go-pkgz/auth, by `auth.tokens` directly, or before
   * sessions existed): `'accept'` keeps them working as before, `'reject'` refuses them.
   * @default 'accept'
   */
  unknownSessions?: 'accept' | 'reject';
  /** The most sessions kept per user; a login past it revokes the oldest. @default 20 */
  maxSessionsPerUser?: number;
}

/** {@link SessionOptions} with defaults filled in. */
export interface ResolvedSessionOptions {
  revocationCheck: RevocationCheck;
  unknownSessions: 'accept' | 'reject';
  maxSessionsPerUser: number;
}

/** Checks {@link SessionOptions}; a start-up error names the option to change. */
export function resolveSessionOptions(options: SessionOptions): ResolvedSessionOptions {
  const { revocationCheck = 'refresh', unknownSessions = 'accept', maxSessionsPerUser = 20 } = options;
  if (revocationCheck !== 'refresh' && revocationCheck !== 'every-request') throw configError("revocationCheck must be 'refresh' or 'every-request'");
  if (unknownSessions !== 'accept' && unknownSessions !== 'reject') throw configError("unknownSessions must be 'accept' or 'reject'");
  if (!Number.isInteger(maxSessionsPerUser) || maxSessionsPerUser < 1 || maxSessionsPerUser > 1000) throw configError('maxSessionsPerUser must be a whole number from 1 to 1000');
  return { revocationCheck, unknownSessions, maxSessionsPerUser };
}
