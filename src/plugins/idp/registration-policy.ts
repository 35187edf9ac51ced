import { randomBytes, timingSafeEqual } from 'node:crypto';
import { configError } from '../../core/errors';

/**
 * Dynamic client registration (RFC 7591) for clients that register themselves (an MCP client, a
 * CLI on first run): off unless given. What they may register is narrowed here.
 */
export interface RegistrationPolicy {
  /**
   * The redirect URIs a registered client may use: exact URLs, where `*` stands for any run of
   * characters without `/`, `?` or `#` (`http://127.0.0.1:*` + `/callback` for loopback apps on any port).
   */
  redirectUris: string[];
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
  /** Whether an `Authorization` header carries one of the initial access tokens. */
  hasInitialAccessToken(authorization: string | undefined): boolean;
  resources: ReadonlySet<string>;
  newClientId(): string;
}

function pattern(uri: string): RegExp {
  const escaped = uri.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/?#]*')}$`);
}

/** Checks the policy at start-up. */
export function resolveRegistration(policy: RegistrationPolicy, knownResources: ReadonlySet<string>): ResolvedRegistration {
  if (policy === null || typeof policy !== 'object' || !Array.isArray(policy.redirectUris) || policy.redirectUris.length === 0)
    throw configError('identityProvider: registration needs redirectUris, the patterns registered clients may use');
  for (const uri of policy.redirectUris) {
    if (typeof uri !== 'string' || !/^(https?:\/\/|[a-z][a-z0-9+.-]*:\/)/i.test(uri)) throw configError(`identityProvider: registration.redirectUris: ${JSON.stringify(uri)} is not a URL pattern`);
    if (/^https?:\/\/\*/i.test(uri)) throw configError(`identityProvider: registration.redirectUris: ${uri} leaves the host open`);
  }
  const tokens = (policy.initialAccessTokens ?? []).map((t) => {
    if (typeof t !== 'string' || t.length < 32) throw configError('identityProvider: registration.initialAccessTokens must be at least 32 characters each');
    return Buffer.from(t);
  });
  const resources = new Set(policy.resources ?? []);
  for (const r of resources) if (!knownResources.has(r)) throw configError(`identityProvider: registration.resources names ${r}, which is not in resources`);
  const patterns = policy.redirectUris.map(pattern);
  return {
    refuseRedirects(uris) {
      if (!Array.isArray(uris) || uris.length === 0) return 'redirect_uris is required';
      const refused = uris.find((u) => typeof u !== 'string' || !patterns.some((p) => p.test(u)));
      return refused === undefined ? undefined : `redirect URI ${String(refused).slice(0, 200)} is not allowed for registered clients`;
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
