import { configError } from '../../base/errors';

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
  revocationCheck?: RevocationCheck | undefined;
  /**
   * Tokens with no session record (made by go-pkgz/auth, by `auth.tokens` directly, or before
   * sessions existed): `'accept'` keeps them working as before, `'reject'` refuses them.
   * @default 'accept'
   */
  unknownSessions?: 'accept' | 'reject' | undefined;
  /** The most sessions kept per user; a login past it revokes the oldest. @default 20 */
  maxSessionsPerUser?: number | undefined;
  /**
   * Absolute session lifetime in ms, counted from the login (`auth_time`), never extended by
   * refreshes: a cookie token past it is not refreshed (401, log in again), and the last token
   * before it expires with it. A token without `auth_time` (go-pkgz/auth's) counts from its `iat`.
   * @default undefined (a session lasts as long as its cookie keeps being refreshed)
   */
  sessionMaxAge?: number | undefined;
  /**
   * How recent the login (`auth_time`) must be for a credential change (adding or removing a
   * passkey, a linked login or two-factor), in ms. Such a change also needs the session cookie
   * with its XSRF header (never a token in `X-JWT` or the URL) and a session the registry knows as
   * live; otherwise 403 `{"error": ..., "code": "step_up_required"}`: log in again.
   * @default 600000 (10 minutes)
   */
  stepUpMaxAge?: number | undefined;
}

/** {@link SessionOptions} with defaults filled in. */
export interface ResolvedSessionOptions {
  revocationCheck: RevocationCheck;
  unknownSessions: 'accept' | 'reject';
  maxSessionsPerUser: number;
  /** In seconds; `undefined` for none. */
  sessionMaxAgeSeconds: number | undefined;
  /** In seconds. */
  stepUpMaxAgeSeconds: number;
}

/** Checks {@link SessionOptions}; a start-up error names the option to change. */
export function resolveSessionOptions(options: SessionOptions): ResolvedSessionOptions {
  const { revocationCheck = 'refresh', unknownSessions = 'accept', maxSessionsPerUser = 20, sessionMaxAge, stepUpMaxAge = 10 * 60_000 } = options;
  if (revocationCheck !== 'refresh' && revocationCheck !== 'every-request') throw configError("revocationCheck must be 'refresh' or 'every-request'");
  if (unknownSessions !== 'accept' && unknownSessions !== 'reject') throw configError("unknownSessions must be 'accept' or 'reject'");
  if (!Number.isInteger(maxSessionsPerUser) || maxSessionsPerUser < 1 || maxSessionsPerUser > 1000) throw configError('maxSessionsPerUser must be a whole number from 1 to 1000');
  if (sessionMaxAge !== undefined && (!Number.isFinite(sessionMaxAge) || sessionMaxAge < 60_000)) throw configError('sessionMaxAge must be a number of ms, at least 60000 (a minute)');
  if (!Number.isFinite(stepUpMaxAge) || stepUpMaxAge < 10_000) throw configError('stepUpMaxAge must be a number of ms, at least 10000');
  return {
    revocationCheck,
    unknownSessions,
    maxSessionsPerUser,
    stepUpMaxAgeSeconds: Math.floor(stepUpMaxAge / 1000),
    sessionMaxAgeSeconds: sessionMaxAge === undefined ? undefined : Math.floor(sessionMaxAge / 1000),
  };
}
