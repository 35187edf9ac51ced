import { cloneUser, type User } from './user';

/** Short-lived state of an OAuth2 (or similar) login in progress, kept in the handshake token. */
export interface Handshake {
  /** The `state` sent to the provider. */
  state?: string;
  /** Where to send the user after login. */
  from?: string;
  /** Provider-specific id. */
  id?: string;
  /** The PKCE code verifier of an OAuth2 login (authgate extension). */
  pkce?: string;
}

/**
 * The JWT claims, in the JSON layout of go-pkgz/auth v2. Times are Unix seconds.
 */
export interface Claims {
  /** Issuer. */
  iss?: string;
  /** Audience; always a single string for user tokens. */
  aud?: string;
  /** Expiry. */
  exp?: number;
  /** Not before. */
  nbf?: number;
  /** Issued at. */
  iat?: number;
  /** Token id; the XSRF cookie carries it. */
  jti?: string;
  /** The logged-in user; absent in handshake tokens. */
  user?: User;
  /** Session-only login: cookies without Max-Age. */
  sess_only?: boolean;
  /** Login-in-progress data (handshake tokens only). */
  handshake?: Handshake;
  /** Skip the avatar fetch, always use the identicon. */
  'no-ava'?: boolean;
  /** The provider that logged the user in. */
  auth_provider?: { name: string };
  /** When the user logged in (seconds, as OpenID Connect names it); kept by refreshes. An authgate extension. */
  auth_time?: number;
  /** Other claims added by a claims updater survive round trips. */
  [extra: string]: unknown;
}

type Shape = 'string' | 'number' | 'boolean' | 'object';

/** `true` for a JSON object (not `null`, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasShape(value: unknown, shape: Shape): boolean {
  return shape === 'object' ? isPlainObject(value) : typeof value === shape && (shape !== 'number' || Number.isFinite(value));
}

/** Why an optional field is not of `shape` (`null` is a wrong shape, not an absence), or `undefined`. */
function fieldError(value: unknown, shape: Shape, name: string): string | undefined {
  return value === undefined || hasShape(value, shape) ? undefined : `${name} must be ${shape === 'object' ? 'an object' : `a ${shape}`}`;
}

/**
 * Why a verified payload does not have the claim layout authgate reads, or `undefined` when it
 * has: every known claim of its type, and a user with a non-empty string `id` and a string
 * `name`. `aud` is checked apart (a single string). A signed token of another shape is an invalid
 * token, never a crash. Each field is read by name (not through a table): every request with a
 * token the cache has not seen runs this.
 */
export function claimsShapeError(payload: Record<string, unknown>): string | undefined {
  const wrong =
    fieldError(payload.iss, 'string', 'iss') ??
    fieldError(payload.exp, 'number', 'exp') ??
    fieldError(payload.nbf, 'number', 'nbf') ??
    fieldError(payload.iat, 'number', 'iat') ??
    fieldError(payload.jti, 'string', 'jti') ??
    fieldError(payload.auth_time, 'number', 'auth_time') ??
    fieldError(payload.sess_only, 'boolean', 'sess_only') ??
    fieldError(payload['no-ava'], 'boolean', 'no-ava') ??
    fieldError(payload.user, 'object', 'user') ??
    fieldError(payload.handshake, 'object', 'handshake') ??
    fieldError(payload.auth_provider, 'object', 'auth_provider');
  if (wrong) return wrong;
  const { user, handshake, auth_provider: provider } = payload as { user?: Record<string, unknown>; handshake?: Record<string, unknown>; auth_provider?: Record<string, unknown> };
  if (handshake !== undefined) {
    const wrongHandshake =
      fieldError(handshake.state, 'string', 'handshake.state') ??
      fieldError(handshake.from, 'string', 'handshake.from') ??
      fieldError(handshake.id, 'string', 'handshake.id') ??
      fieldError(handshake.pkce, 'string', 'handshake.pkce');
    if (wrongHandshake) return wrongHandshake;
  }
  if (provider !== undefined && provider.name !== undefined && typeof provider.name !== 'string') return 'auth_provider.name must be a string';
  if (user === undefined) return undefined;
  const wrongUser =
    fieldError(user.name, 'string', 'user.name') ??
    fieldError(user.id, 'string', 'user.id') ??
    fieldError(user.picture, 'string', 'user.picture') ??
    fieldError(user.aud, 'string', 'user.aud') ??
    fieldError(user.ip, 'string', 'user.ip') ??
    fieldError(user.email, 'string', 'user.email') ??
    fieldError(user.attrs, 'object', 'user.attrs') ??
    fieldError(user.role, 'string', 'user.role');
  if (wrongUser) return wrongUser;
  if (typeof user.id !== 'string' || user.id === '') return 'user.id must be a non-empty string';
  if (typeof user.name !== 'string') return 'user.name must be a string';
  return undefined;
}

/** A copy of claims deep enough that a handler changing the user or its attributes cannot change the cache. */
export function cloneClaims(claims: Claims): Claims {
  return claims.user === undefined ? { ...claims } : { ...claims, user: cloneUser(claims.user) };
}
