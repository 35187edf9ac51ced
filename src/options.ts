import { createAvatarStore, type AvatarStore } from './avatar/store';
import { AuthError, configError } from './errors';
import { guardStore } from './internal/guarded-store';
import { CrossSitePolicy, type CrossSiteOptions } from './internal/cross-origin';
import {
  toFunction,
  type BasicAuthChecker,
  type ClaimsUpdater,
  type MaybePromise,
  type SecretReader,
  type UserUpdater,
  type Validator,
} from './hooks';
import { noopLogger, type Logger } from './logger';
import { MemoryRefreshCache, type RefreshCache } from './middleware/refresh-cache';
import { StateRefreshCache } from './middleware/state-refresh-cache';
import { createStateStore } from './state/create-state-store';
import { AUTH_RATE_LIMITS, resolveRules, type AuthRateLimit, type RateLimitRule } from './limits/rate-limiter';
import type { StateStore } from './state/state-store';
import type { Claims } from './token/claims';
import type { User } from './token/user';
import type { AuthErrorHandler } from './middleware/error-handler';

/** Cookie SameSite policy. */
export type SameSite = 'lax' | 'strict' | 'none';

/** Options of {@link createAuth}. Durations are milliseconds. */
export interface AuthOptions extends CrossSiteOptions {
  /**
   * Public base URL of the app (scheme, host, port), used for OAuth2 callbacks, avatar links and
   * the redirect allowlist. Required.
   */
  url: string;
  /** The signing secret. Give this or `secretReader`. */
  secret?: string;
  /** Gives the signing secret per audience; wins over `secret`. */
  secretReader?: SecretReader;
  /** JWT `iss`. @default 'authgate' */
  issuer?: string;
  /** Lifetime of a token; an expired cookie token is refreshed by `auth`. @default 900000 (15 minutes) */
  tokenDuration?: number;
  /** Lifetime of the cookies, and how long after expiry a cookie token may still be refreshed. @default 2678400000 (31 days) */
  cookieDuration?: number;
  /** Allowed audiences; any other `aud` is refused at login and on every request. @default undefined (any) */
  audiences?: string[];
  /** Turn off the XSRF header check (only for APIs that never use cookies from a browser). @default false */
  disableXsrf?: boolean;
  /** Methods for which the XSRF header is not checked. @default [] */
  xsrfIgnoreMethods?: string[];
  /** Name of the cookie holding the JWT. @default 'JWT' */
  jwtCookieName?: string;
  /** Domain of the cookies; host-only when unset. @default undefined */
  jwtCookieDomain?: string;
  /** Name of the cookie holding the token id for XSRF. @default 'XSRF-TOKEN' */
  xsrfCookieName?: string;
  /** Header that must echo the XSRF cookie. @default 'X-XSRF-TOKEN' */
  xsrfHeaderKey?: string;
  /** Header a client may send the JWT in (and where `sendJwtHeader` puts it). @default 'X-JWT' */
  jwtHeaderKey?: string;
  /** Query parameter a client may send the JWT in. @default 'token' */
  jwtQuery?: string;
  /** Send the token in the `jwtHeaderKey` response header instead of cookies. @default false */
  sendJwtHeader?: boolean;
  /** SameSite of the session cookies. @default 'lax' */
  sameSite?: SameSite;
  /** Secure flag of the cookies. @default true when `url` is https */
  secureCookies?: boolean;
  /** Called on every new or refreshed token to change its claims. @default undefined */
  claimsUpdater?: ClaimsUpdater;
  /** Called on every request behind `auth`; `false` rejects and clears the cookies. @default undefined */
  validator?: Validator;
  /** Used by the `updateUser` middleware. @default undefined */
  userUpdater?: UserUpdater;
  /** Enables basic auth `admin:<adminPasswd>` as an admin user. @default undefined (off) */
  adminPasswd?: string;
  /** Decides basic auth itself; `adminPasswd` is then ignored. @default undefined */
  basicAuthChecker?: BasicAuthChecker;
  /** Extra hosts (`host` or `host:port`) that `from` may redirect to. @default [] */
  allowedRedirectHosts?: string[];
  /** Where avatars are kept; a store or a URI for {@link createAvatarStore}. @default 'memory://' */
  avatarStore?: AvatarStore | string;
  /** Path the avatar router is mounted at, used to build avatar links. @default '/avatar' */
  avatarRoutePath?: string;
  /** Avatars wider or taller than this are resized once (aspect kept, PNG); 0 keeps the size. @default 0 */
  avatarResizeLimit?: number;
  /**
   * Derive avatar ids as HMAC-SHA1(secret, user id) instead of sha1(user id), so an avatar URL
   * cannot be guessed from a user id. Off by default because go-pkgz/auth uses the plain scheme:
   * with it set, avatar links differ from a Go service's for the same user. @default undefined
   */
  avatarIdSecret?: string;
  /** Let the avatar fetch reach loopback, private and link-local addresses (tests, intranets). @default false */
  avatarAllowPrivateNetworks?: boolean;
  /** Time limit of one avatar fetch. @default 5000 */
  avatarFetchTimeout?: number;
  /** Size limit of a fetched avatar in bytes. @default 10485760 (10 MiB) */
  avatarMaxBytes?: number;
  /** Pixel limit (width x height) of a fetched avatar; guards against decompression bombs. @default 16777216 (4096x4096) */
  avatarMaxPixels?: number;
  /**
   * Shared state (one-shot login tokens, pending logins, refresh cache): a store or a URI for
   * {@link createStateStore} (`memory://`, `level:///path`, `mongodb://...`). Use mongo when
   * several instances serve logins. @default 'memory://'
   */
  stateStore?: StateStore | string;
  /** Cache of refreshed tokens, so concurrent requests refresh a token once. @default in memory, or on `stateStore` when one is given */
  refreshCache?: RefreshCache;
  /** Answers middleware rejections instead of the default JSON body. @default undefined */
  errorHandler?: AuthErrorHandler;
  /**
   * How many verified tokens are remembered, so a token's signature is checked once; expiry,
   * audience, XSRF and the validator are still checked on every request, and a token is checked
   * again when `secretReader` gives another secret. 0 turns the cache off. @default 10000
   */
  verifiedTokenCacheSize?: number;
  /** Size limit of request bodies read by the auth routes, in bytes. @default 16384 */
  bodyLimit?: number;
  /**
   * Rate limits of the endpoints that guess or send (429 with Retry-After past them), counted in
   * `stateStore`. `false` turns all off; give `{ loginPerUser: { limit: 5, windowMs: 60000 } }` to
   * change one, or `{ loginPerIp: false }` to drop one.
   * @default loginPerIp 60/min, loginPerUser 10/min, basicPerIp 60/min and basicPerUser 10/min (failed basic auth only), verifyPerIp 20/10 min, verifyPerAddress 5/10 min, telegramPerIp 30/min
   */
  rateLimits?: false | Partial<Record<AuthRateLimit, RateLimitRule | false>>;
  /** How long a call to the avatar or state store may take before the request gets a 503. @default 5000 */
  storeTimeout?: number;
  /** Where authgate logs. @default noopLogger */
  logger?: Logger;
}

/** {@link AuthOptions} with every default filled in and hooks turned into functions. */
export interface ResolvedOptions {
  url: URL;
  secretReader: (aud: string) => MaybePromise<string>;
  issuer: string;
  tokenDuration: number;
  cookieDuration: number;
  audiences: string[] | undefined;
  disableXsrf: boolean;
  xsrfIgnoreMethods: Set<string>;
  jwtCookieName: string;
  jwtCookieDomain: string | undefined;
  xsrfCookieName: string;
  xsrfHeaderKey: string;
  jwtHeaderKey: string;
  jwtQuery: string;
  sendJwtHeader: boolean;
  sameSite: SameSite;
  secureCookies: boolean;
  claimsUpdater: ((claims: Claims) => MaybePromise<Claims>) | undefined;
  validator: ((token: string, claims: Claims) => MaybePromise<boolean>) | undefined;
  userUpdater: ((user: User) => MaybePromise<User>) | undefined;
  adminPasswd: string | undefined;
  basicAuthChecker: BasicAuthChecker | undefined;
  allowedRedirectHosts: string[];
  crossSite: CrossSitePolicy;
  avatarStore: AvatarStore;
  avatarRoutePath: string;
  avatarResizeLimit: number;
  avatarIdSecret: string | undefined;
  avatarAllowPrivateNetworks: boolean;
  avatarFetchTimeout: number;
  avatarMaxBytes: number;
  avatarMaxPixels: number;
  stateStore: StateStore;
  refreshCache: RefreshCache;
  errorHandler: AuthErrorHandler | undefined;
  bodyLimit: number;
  rateLimits: Partial<Record<AuthRateLimit, RateLimitRule | false>>;
  verifiedTokenCacheSize: number;
  logger: Logger;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw configError(`options.${name} must be a positive number of milliseconds`);
  return value;
}

function wholeNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw configError(`options.${name} must be a whole number >= 0`);
  return value;
}

function headerName(name: string, value: string | undefined, fallback: string): string {
  const v = value ?? fallback;
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v)) throw configError(`options.${name} ${JSON.stringify(v)} is not a valid name`);
  return v;
}

/**
 * Checks {@link AuthOptions} and fills in the defaults. Throws an {@link AuthError} with code
 * `config` and a message that says what to change.
 */
export function resolveOptions(options: AuthOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw configError('createAuth() needs an options object');
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw configError('options.url must be the public base URL of the app, e.g. "http://127.0.0.1:8080"');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError('options.url must be an http or https URL');

  const reader = toFunction<[string], MaybePromise<string>>(options.secretReader, 'get');
  const secret = options.secret;
  if (!reader && (typeof secret !== 'string' || secret.length === 0)) {
    throw configError('a signing secret is required: pass options.secret or options.secretReader');
  }
  if (reader === undefined && secret !== undefined && secret.length < 16) {
    (options.logger ?? noopLogger).logf('[WARN] the signing secret is shorter than 16 characters');
  }
  const audiences = options.audiences;
  if (audiences !== undefined && (!Array.isArray(audiences) || audiences.some((a) => typeof a !== 'string' || a === ''))) {
    throw configError('options.audiences must be an array of non-empty strings');
  }
  const sameSite = options.sameSite ?? 'lax';
  if (!['lax', 'strict', 'none'].includes(sameSite)) throw configError(`options.sameSite must be 'lax', 'strict' or 'none'`);
  const secureCookies = options.secureCookies ?? url.protocol === 'https:';
  if (sameSite === 'none' && !secureCookies) throw configError(`options.sameSite 'none' needs secure cookies (an https url)`);
  if (options.basicAuthChecker !== undefined && typeof options.basicAuthChecker !== 'function') {
    throw configError('options.basicAuthChecker must be a function');
  }
  const avatarRoutePath = options.avatarRoutePath ?? '/avatar';
  if (!avatarRoutePath.startsWith('/')) throw configError('options.avatarRoutePath must start with "/"');
  const resizeLimit = options.avatarResizeLimit ?? 0;
  if (!Number.isInteger(resizeLimit) || resizeLimit < 0) throw configError('options.avatarResizeLimit must be a whole number >= 0');

  const storeTimeout = positive('storeTimeout', options.storeTimeout, 5000);
  const contractError = (err: unknown): boolean => err instanceof AuthError && err.status < 500;
  const givenState = typeof options.stateStore === 'string' ? createStateStore(options.stateStore) : options.stateStore;
  const stateStore = givenState && guardStore(givenState, 'state store', storeTimeout, contractError);
  const avatarStore = guardStore(
    typeof options.avatarStore === 'string' || options.avatarStore === undefined ? createAvatarStore(options.avatarStore ?? 'memory://') : options.avatarStore,
    'avatar store',
    storeTimeout,
    contractError,
  );

  return {
    url,
    secretReader: reader ?? ((): string => secret as string),
    issuer: options.issuer ?? 'authgate',
    tokenDuration: positive('tokenDuration', options.tokenDuration, 15 * MINUTE),
    cookieDuration: positive('cookieDuration', options.cookieDuration, 31 * DAY),
    audiences: audiences ? [...audiences] : undefined,
    disableXsrf: options.disableXsrf ?? false,
    xsrfIgnoreMethods: new Set((options.xsrfIgnoreMethods ?? []).map((m) => m.toUpperCase())),
    jwtCookieName: headerName('jwtCookieName', options.jwtCookieName, 'JWT'),
    jwtCookieDomain: options.jwtCookieDomain,
    xsrfCookieName: headerName('xsrfCookieName', options.xsrfCookieName, 'XSRF-TOKEN'),
    xsrfHeaderKey: headerName('xsrfHeaderKey', options.xsrfHeaderKey, 'X-XSRF-TOKEN'),
    jwtHeaderKey: headerName('jwtHeaderKey', options.jwtHeaderKey, 'X-JWT'),
    jwtQuery: options.jwtQuery ?? 'token',
    sendJwtHeader: options.sendJwtHeader ?? false,
    sameSite,
    secureCookies,
    claimsUpdater: toFunction<[Claims], MaybePromise<Claims>>(options.claimsUpdater, 'update'),
    validator: toFunction<[string, Claims], MaybePromise<boolean>>(options.validator, 'validate'),
    userUpdater: toFunction<[User], MaybePromise<User>>(options.userUpdater, 'update'),
    adminPasswd: options.adminPasswd === '' ? undefined : options.adminPasswd,
    basicAuthChecker: options.basicAuthChecker,
    allowedRedirectHosts: (options.allowedRedirectHosts ?? []).map((h) => h.toLowerCase()),
    crossSite: new CrossSitePolicy(url, options),
    avatarStore,
    avatarRoutePath: avatarRoutePath.replace(/\/+$/, ''),
    avatarResizeLimit: resizeLimit,
    avatarIdSecret: options.avatarIdSecret || undefined,
    avatarAllowPrivateNetworks: options.avatarAllowPrivateNetworks ?? false,
    avatarFetchTimeout: positive('avatarFetchTimeout', options.avatarFetchTimeout, 5000),
    avatarMaxBytes: positive('avatarMaxBytes', options.avatarMaxBytes, 10 * 1024 * 1024),
    avatarMaxPixels: positive('avatarMaxPixels', options.avatarMaxPixels, 4096 * 4096),
    stateStore: stateStore ?? guardStore(createStateStore('memory://'), 'state store', storeTimeout, contractError),
    refreshCache: options.refreshCache ?? (stateStore ? new StateRefreshCache(stateStore) : new MemoryRefreshCache()),
    errorHandler: options.errorHandler,
    bodyLimit: positive('bodyLimit', options.bodyLimit, 16 * 1024),
    rateLimits: resolveRules(AUTH_RATE_LIMITS, options.rateLimits),
    verifiedTokenCacheSize: wholeNumber('verifiedTokenCacheSize', options.verifiedTokenCacheSize, 10_000),
    logger: options.logger ?? noopLogger,
  };
}
