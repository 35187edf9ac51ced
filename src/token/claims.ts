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
