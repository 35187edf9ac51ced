import type { User } from './user';

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

/** Optional fields: absent, or of this shape (`null` is a wrong shape, not an absence). */
function wrongFields(record: Record<string, unknown>, fields: ReadonlyArray<readonly [string, Shape]>, prefix = ''): string | undefined {
  for (const [name, shape] of fields) {
    if (record[name] !== undefined && !hasShape(record[name], shape)) return `${prefix}${name} must be ${shape === 'object' ? 'an object' : `a ${shape}`}`;
  }
  return undefined;
}

const CLAIM_SHAPES: ReadonlyArray<readonly [string, Shape]> = Object.entries({
  iss: 'string',
  exp: 'number',
  nbf: 'number',
  iat: 'number',
  jti: 'string',
  sess_only: 'boolean',
  'no-ava': 'boolean',
  user: 'object',
  handshake: 'object',
  auth_provider: 'object',
} satisfies Record<string, Shape>);
const USER_SHAPES: ReadonlyArray<readonly [string, Shape]> = Object.entries({
  name: 'string',
  id: 'string',
  picture: 'string',
  aud: 'string',
  ip: 'string',
  email: 'string',
  attrs: 'object',
  role: 'string',
} satisfies Record<string, Shape>);
const HANDSHAKE_SHAPES: ReadonlyArray<readonly [string, Shape]> = Object.entries({ state: 'string', from: 'string', id: 'string', pkce: 'string' } satisfies Record<string, Shape>);

/**
 * Why a verified payload does not have the claim layout authgate reads, or `undefined` when it
 * has: every known claim of its type, and a user with a non-empty string `id` and a string
 * `name`. `aud` is checked apart (a single string). A signed token of another shape is an invalid token, never a crash.
 */
export function claimsShapeError(payload: Record<string, unknown>): string | undefined {
  const wrong = wrongFields(payload, CLAIM_SHAPES);
  if (wrong) return wrong;
  const { user, handshake, auth_provider: provider } = payload as { user?: Record<string, unknown>; handshake?: Record<string, unknown>; auth_provider?: Record<string, unknown> };
  if (handshake !== undefined) {
    const wrongHandshake = wrongFields(handshake, HANDSHAKE_SHAPES, 'handshake.');
    if (wrongHandshake) return wrongHandshake;
  }
  if (provider !== undefined && provider.name !== undefined && typeof provider.name !== 'string') return 'auth_provider.name must be a string';
  if (user === undefined) return undefined;
  const wrongUser = wrongFields(user, USER_SHAPES, 'user.');
  if (wrongUser) return wrongUser;
  if (typeof user.id !== 'string' || user.id === '') return 'user.id must be a non-empty string';
  if (typeof user.name !== 'string') return 'user.name must be a string';
  return undefined;
}
