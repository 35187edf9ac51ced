import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { configError } from '../../plugin-kit/helpers';
import { isPrivateAddress, patternProblem, urlPattern, type UrlPattern } from '../../plugin-kit/http';

/**
 * Dynamic client registration (RFC 7591) for clients that register themselves (an MCP client, a
 * CLI on first run): off unless given. What they may register is narrowed here.
 */
export interface RegistrationPolicy {
  /**
   * The redirect URIs a registered client may use: URLs in which `*` stands for part of one host
   * label below a fixed domain (`https://*.agents.example.com/callback`), the whole port
   * (`http://127.0.0.1:*` + `/callback` for loopback apps on any port), or part of one path segment.
   * They are matched on the parsed URL: a URI with a user part, a backslash, a fragment, a
   * percent-encoded separator or any other spelling than its parsed form is refused.
   */
  redirectUris: string[];
  /**
   * The `post_logout_redirect_uris` a registered client may use, as patterns like `redirectUris`.
   * @default the `redirectUris` patterns
   */
  postLogoutRedirectUris?: string[];
  /**
   * Initial access tokens (at least 32 characters each): a registration that sends one
   * (`Authorization: Bearer`) may make a confidential client; without one, only public clients
   * (`token_endpoint_auth_method: none`, PKCE) are made.
   * @default [] (public clients only)
   */
  initialAccessTokens?: string[];
  /** The ids of the provider's `resources` registered clients may ask tokens for. @default [] */
  resources?: string[];
}

/** Client ids of registered clients start with this (static and admin-made clients never do). */
export const REGISTERED_PREFIX = 'dyn_';

/** The policy, checked, as the provider's hooks use it. */
export interface ResolvedRegistration {
  /** `undefined` when the redirect URIs are allowed, else why not. */
  refuseRedirects(uris: unknown): string | undefined;
  /** `undefined` when no URI of the metadata that the provider or a browser would fetch points inside the network, else why not. */
  refuseInternalUris(metadata: Readonly<Record<string, unknown>>): string | undefined;
  /** `undefined` when the post-logout redirect URIs (optional) are allowed, else why not. */
  refusePostLogoutRedirects(uris: unknown): string | undefined;
  /** Whether an `Authorization` header carries one of the initial access tokens. */
  hasInitialAccessToken(authorization: string | undefined): boolean;
  resources: ReadonlySet<string>;
  newClientId(): string;
}

function patterns(uris: unknown, name: string): UrlPattern[] {
  if (!Array.isArray(uris) || uris.length === 0) throw configError(`identityProvider: registration needs ${name}, the patterns registered clients may use`);
  return uris.map((uri: unknown) => {
    const problem = typeof uri === 'string' ? patternProblem(uri) : 'is not a string';
    if (problem !== undefined) throw configError(`identityProvider: registration.${name}: ${JSON.stringify(uri)} ${problem}`);
    return urlPattern(uri as string);
  });
}

/** The client metadata holding URLs that are fetched (by the provider) or shown as links (to users): none may point inside the network. */
const FETCHED_URIS = ['jwks_uri', 'logo_uri', 'client_uri', 'policy_uri', 'tos_uri', 'sector_identifier_uri', 'initiate_login_uri', 'backchannel_logout_uri', 'request_uris'];
const LOCAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

/** A value of client metadata as a message may quote it: never through its own `toString` (a client may send `{"toString": 1}`). */
function shown(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 200) : `a ${value === null ? 'null' : typeof value}`;
}

/** Why `uri` may not be registered (it is no public https URL), or `undefined`. */
function internalProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'is not a string';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'is not an https URL';
  if (url.username !== '' || url.password !== '') return 'has a user part';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 ? isPrivateAddress(host) : LOCAL_NAMES.test(host.replace(/\.$/, '')) || !host.includes('.')) return 'points inside the network';
  return undefined;
}

function refusal(uris: unknown, allowed: readonly UrlPattern[]): string | undefined {
  const refused = (uris as unknown[]).find((u) => typeof u !== 'string' || !allowed.some((p) => p.matches(u)));
  return refused === undefined ? undefined : `${shown(refused)} is not allowed for registered clients`;
}

/** Checks the policy at start-up. */
export function resolveRegistration(policy: RegistrationPolicy, knownResources: ReadonlySet<string>): ResolvedRegistration {
  if (policy === null || typeof policy !== 'object') throw configError('identityProvider: registration needs redirectUris, the patterns registered clients may use');
  const redirects = patterns(policy.redirectUris, 'redirectUris');
  const postLogout = policy.postLogoutRedirectUris === undefined ? redirects : patterns(policy.postLogoutRedirectUris, 'postLogoutRedirectUris');
  const tokens = (policy.initialAccessTokens ?? []).map((t) => {
    if (typeof t !== 'string')
      throw configError(
        `identityProvider: registration.initialAccessTokens holds ${t === undefined ? 'undefined (an unset environment variable?)' : typeof t}: give strings of 32 characters or more, or leave the list out (public clients register without one)`,
      );
    if (t.length < 32) throw configError('identityProvider: registration.initialAccessTokens must be at least 32 characters each');
    return Buffer.from(t);
  });
  const resources = new Set(policy.resources ?? []);
  for (const r of resources) if (!knownResources.has(r)) throw configError(`identityProvider: registration.resources names ${r}, which is not in resources`);
  return {
    refuseRedirects(uris) {
      if (!Array.isArray(uris) || uris.length === 0) return 'redirect_uris is required';
      return refusal(uris, redirects);
    },
    refuseInternalUris(metadata) {
      for (const name of FETCHED_URIS) {
        const value = metadata[name];
        for (const uri of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
          const problem = internalProblem(uri);
          if (problem !== undefined) return `${name}: ${shown(uri)} ${problem}`;
        }
      }
      return undefined;
    },
    refusePostLogoutRedirects(uris) {
      if (uris === undefined) return undefined;
      if (!Array.isArray(uris)) return 'post_logout_redirect_uris must be a list';
      return refusal(uris, postLogout);
    },
    hasInitialAccessToken(authorization) {
      const given = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
      if (given === undefined) return false;
      const value = Buffer.from(given);
      return tokens.some((t) => t.length === value.length && timingSafeEqual(t, value));
    },
    resources,
    newClientId: () => `${REGISTERED_PREFIX}${randomBytes(12).toString('base64url')}`,
  };
}
