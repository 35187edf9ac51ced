import type { KeyObject } from 'node:crypto';
import { configError } from '../../base/errors';
import type { MaybePromise } from '../../core/token/hooks';
import { positiveMs } from '../../internal/option-checks';
import type { User } from '../../core/token/user';
import type { BearerTokens } from '../oauth2/oauth2-provider';
import type { NetworkGuard } from '../../internal/json-client';

/** How the client proves itself at the token endpoint. */
export type OidcClientAuth = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** Options of `auth.addOidcProvider(name, options)`. */
export interface OidcProviderOptions {
  /** The issuer, exactly as the provider's discovery document names it, e.g. `https://id.example.com/realms/app`. */
  issuer: string;
  /** The client id registered at the provider. */
  clientId: string;
  /** The client secret (for `client_secret_basic` and `client_secret_post`). */
  clientSecret?: string | undefined;
  /** How the client authenticates at the token endpoint. @default 'client_secret_basic' ('private_key_jwt' when `privateKey` is given) */
  clientAuth?: OidcClientAuth | undefined;
  /** The client's private key for `private_key_jwt` (a `KeyObject` or PKCS#8 PEM). */
  privateKey?: KeyObject | string | undefined;
  /** The `kid` of `privateKey` as registered at the provider. @default none */
  privateKeyId?: string | undefined;
  /** Scopes asked for; `openid` is always included. @default ['openid', 'profile', 'email'] */
  scopes?: string[] | undefined;
  /** More authorization parameters, e.g. `{ prompt: 'select_account' }`. @default {} */
  authParams?: Record<string, string> | undefined;
  /** Ask the user-info endpoint too (when discovery names one). @default true */
  userInfo?: boolean | undefined;
  /** Maps the verified claims (id_token merged with user info) to the user. @default sub → id, name / preferred_username / verified e-mail → name, picture, verified e-mail */
  mapUser?: ((claims: Record<string, unknown>, tokens: BearerTokens) => MaybePromise<User>) | undefined;
  /** Called after a login with the provider's tokens. @default undefined */
  onBearerToken?: ((providerName: string, user: User, tokens: BearerTokens) => MaybePromise<void>) | undefined;
  /** Where the provider sends the browser after logout (RP-initiated logout at `/<name>/logout`); registered at the provider. @default undefined (logout stays local) */
  postLogoutRedirectUri?: string | undefined;
  /** How long the discovery document and keys are kept. @default 3600000 (an hour) */
  discoveryTtlMs?: number | undefined;
  /** Allowed clock skew for `exp`, `iat`, `nbf`, in ms. @default 60000 */
  clockSkewMs?: number | undefined;
  /** Time limit of one call to the provider. @default 10000 */
  timeoutMs?: number | undefined;
  /**
   * The shortest wait between two fetches of the keys when an id_token names a key not kept
   * (rotation), so forged key ids cannot make authgate hammer the provider.
   * @default 10000
   */
  keysCooldownMs?: number | undefined;
}

/** {@link OidcProviderOptions} checked, with defaults. */
export interface ResolvedOidcOptions extends Omit<
  OidcProviderOptions,
  'issuer' | 'scopes' | 'clientAuth' | 'discoveryTtlMs' | 'clockSkewMs' | 'timeoutMs' | 'userInfo' | 'authParams' | 'keysCooldownMs'
> {
  keysCooldownMs: number;
  issuer: string;
  scopes: string[];
  clientAuth: OidcClientAuth;
  discoveryTtlMs: number;
  clockSkewMs: number;
  timeoutMs: number;
  userInfo: boolean;
  authParams: Record<string, string>;
  /** The cookie the login in progress is kept in. @default the session cookie */
  handshakeCookie?: string | undefined;
  /** Starts every `state` (the SSO plugin puts the connection there, so a callback checks it came back to the same one). @default '' */
  statePrefix?: string | undefined;
  /** The callback's path below the auth router. @default `/<name>/callback` */
  callbackPath?: string | undefined;
  /** The SSRF guard, for a provider a user of the app configured (an organization's). @default none */
  guard?: NetworkGuard | undefined;
  /** Whether the verified claims prove two factors (their `amr`) for `user` (the login's user), so the login does not wait for the app's. @default never */
  multiFactor?: ((claims: Record<string, unknown>, user: User) => boolean) | undefined;
}

/** Checks the options at registration: a misconfiguration fails at start-up, not at the first login. */
export function resolveOidcOptions(name: string, options: OidcProviderOptions): ResolvedOidcOptions {
  const fail = (what: string): never => {
    throw configError(`addOidcProvider("${name}"): ${what}`);
  };
  if (options === null || typeof options !== 'object') fail('needs options { issuer, clientId, clientSecret }');
  let issuer: URL | undefined;
  try {
    issuer = new URL(options.issuer);
  } catch {
    fail('issuer must be the provider\'s issuer URL, e.g. "https://id.example.com/realms/app"');
  }
  if (issuer && issuer.protocol !== 'https:' && issuer.protocol !== 'http:') fail('issuer must be an https URL');
  if (typeof options.clientId !== 'string' || options.clientId === '') fail('clientId is required');
  const clientAuth = options.clientAuth ?? (options.privateKey ? 'private_key_jwt' : 'client_secret_basic');
  if (!['client_secret_basic', 'client_secret_post', 'private_key_jwt'].includes(clientAuth)) fail("clientAuth must be 'client_secret_basic', 'client_secret_post' or 'private_key_jwt'");
  if (clientAuth === 'private_key_jwt' && !options.privateKey) fail('private_key_jwt needs privateKey');
  if (clientAuth !== 'private_key_jwt' && (typeof options.clientSecret !== 'string' || options.clientSecret === '')) fail(`${clientAuth} needs clientSecret`);
  const scopes = [...new Set(['openid', ...(options.scopes ?? ['profile', 'email'])])];
  return {
    ...options,
    issuer: options.issuer,
    scopes,
    clientAuth,
    discoveryTtlMs: positiveMs('discoveryTtlMs', options.discoveryTtlMs, 3_600_000),
    clockSkewMs: positiveMs('clockSkewMs', options.clockSkewMs, 60_000),
    timeoutMs: positiveMs('timeoutMs', options.timeoutMs, 10_000),
    keysCooldownMs: options.keysCooldownMs === 0 ? 0 : positiveMs('keysCooldownMs', options.keysCooldownMs, 10_000),
    userInfo: options.userInfo ?? true,
    authParams: options.authParams ?? {},
  };
}
