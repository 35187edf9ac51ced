import { configError } from '../../base/errors';
import { toFunction, type ClaimsUpdater, type MaybePromise, type SecretReader } from './hooks';
import { headerName, positiveMs, wholeNumber } from '../../internal/option-checks';
import type { Claims } from './claims';

/** Cookie SameSite policy. */
export type SameSite = 'lax' | 'strict' | 'none';

/** The options of tokens and cookies (part of `createAuth`'s options). Durations are milliseconds. */
export interface TokenOptions {
  /** The signing secret (HS256): at least 32 characters, e.g. from `openssl rand -hex 32`. Give this or `secretReader`. */
  secret?: string | undefined;
  /** Gives the signing secret per audience; wins over `secret`. */
  secretReader?: SecretReader | undefined;
  /** JWT `iss`. @default 'authgate' */
  issuer?: string | undefined;
  /** Lifetime of a token; an expired cookie token is refreshed by `auth`. @default 900000 (15 minutes) */
  tokenDuration?: number | undefined;
  /** Lifetime of the cookies, and how long after expiry a cookie token may still be refreshed. @default 2678400000 (31 days) */
  cookieDuration?: number | undefined;
  /** Allowed audiences; any other `aud` is refused at login and on every request. @default undefined (any) */
  audiences?: string[] | undefined;
  /** Turn off the XSRF header check (only for APIs that never use cookies from a browser). @default false */
  disableXsrf?: boolean | undefined;
  /**
   * Methods for which the XSRF header is not checked. A site whose pages are rendered on the server
   * (a plain link or a redirect after login is a GET without the header) sets
   * `['GET', 'HEAD', 'OPTIONS']`: safe as long as those routes change nothing (see README, Security).
   * @default [] (every method, as go-pkgz/auth checks it)
   */
  xsrfIgnoreMethods?: string[] | undefined;
  /** Name of the cookie holding the JWT. @default 'JWT' */
  jwtCookieName?: string | undefined;
  /** Domain of the cookies; host-only when unset. @default undefined */
  jwtCookieDomain?: string | undefined;
  /** Name of the cookie holding the token id for XSRF. @default 'XSRF-TOKEN' */
  xsrfCookieName?: string | undefined;
  /** Header that must echo the XSRF cookie. @default 'X-XSRF-TOKEN' */
  xsrfHeaderKey?: string | undefined;
  /** Header a client may send the JWT in (and where `sendJwtHeader` puts it). @default 'X-JWT' */
  jwtHeaderKey?: string | undefined;
  /**
   * Query parameter a client may send the JWT in, or `false` to accept none there. A token in a
   * URL ends up in access logs, browser history and `Referer` headers: turn it off unless a client
   * (such as go-pkgz/auth's, or a link you mail) needs it.
   * @default 'token'
   */
  jwtQuery?: string | false | undefined;
  /** Send the token in the `jwtHeaderKey` response header instead of cookies. @default false */
  sendJwtHeader?: boolean | undefined;
  /** SameSite of the session cookies. @default 'lax' */
  sameSite?: SameSite | undefined;
  /** Secure flag of the cookies. @default true when `url` is https */
  secureCookies?: boolean | undefined;
  /** Called on every new or refreshed token to change its claims. @default undefined */
  claimsUpdater?: ClaimsUpdater | undefined;
  /**
   * How many verified tokens are remembered, so a token's signature is checked once; expiry,
   * audience, XSRF and the validator are still checked on every request, and a token is checked
   * again when `secretReader` gives another secret. 0 turns the cache off. @default 10000
   */
  verifiedTokenCacheSize?: number | undefined;
}

/** {@link TokenOptions} with defaults filled in and hooks turned into functions. */
export interface ResolvedTokenOptions {
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
  /** `undefined` when tokens in the query are off. */
  jwtQuery: string | undefined;
  sendJwtHeader: boolean;
  sameSite: SameSite;
  secureCookies: boolean;
  claimsUpdater: ((claims: Claims) => MaybePromise<Claims>) | undefined;
  verifiedTokenCacheSize: number;
}

const MINUTE = 60_000;
/** The shortest signing secret `createAuth` takes (a `secretReader` is not checked). */
const MIN_SECRET_LENGTH = 32;
const DAY = 24 * 60 * MINUTE;

/**
 * Checks {@link TokenOptions} and fills in the defaults.
 * @param url - the app's URL (https makes cookies Secure by default).
 */
export function resolveTokenOptions(options: TokenOptions, url: URL): ResolvedTokenOptions {
  const reader = toFunction<[string], MaybePromise<string>>(options.secretReader, 'get');
  const fix = `at least ${MIN_SECRET_LENGTH} random characters, e.g. from openssl rand -hex 32`;
  const secret = options.secret;
  if (!reader && (typeof secret !== 'string' || secret.length === 0)) {
    // The usual slip: secret: process.env.AUTH_SECRET with the variable unset.
    throw configError(
      'secret' in options
        ? `createAuth({ secret }) got ${secret === '' ? 'an empty string' : String(secret)}: is the environment variable it is read from (such as AUTH_SECRET) set? It needs ${fix}`
        : `a signing secret is required: createAuth({ secret }) (${fix}) or createAuth({ secretReader })`,
    );
  }
  // HS256 with a short secret falls to an offline guess from any one token. A secretReader is
  // trusted as given: it is how a go-pkgz/auth deployment with an older, shorter secret is joined.
  if (reader === undefined && typeof secret === 'string' && secret.length < MIN_SECRET_LENGTH) {
    throw configError(`createAuth({ secret }) is ${secret.length} characters: it needs ${fix}`);
  }
  const audiences = options.audiences;
  if (audiences !== undefined && (!Array.isArray(audiences) || audiences.some((a) => typeof a !== 'string' || a === ''))) {
    throw configError('options.audiences must be an array of non-empty strings');
  }
  const sameSite = options.sameSite ?? 'lax';
  if (!['lax', 'strict', 'none'].includes(sameSite)) throw configError(`options.sameSite must be 'lax', 'strict' or 'none'`);
  const secureCookies = options.secureCookies ?? url.protocol === 'https:';
  if (sameSite === 'none' && !secureCookies) throw configError(`options.sameSite 'none' needs secure cookies (an https url)`);
  return {
    secretReader: reader ?? ((): string => secret as string),
    issuer: options.issuer ?? 'authgate',
    tokenDuration: positiveMs('tokenDuration', options.tokenDuration, 15 * MINUTE),
    cookieDuration: positiveMs('cookieDuration', options.cookieDuration, 31 * DAY),
    audiences: audiences ? [...audiences] : undefined,
    disableXsrf: options.disableXsrf ?? false,
    xsrfIgnoreMethods: new Set((options.xsrfIgnoreMethods ?? []).map((m) => m.toUpperCase())),
    jwtCookieName: headerName('jwtCookieName', options.jwtCookieName, 'JWT'),
    jwtCookieDomain: options.jwtCookieDomain,
    xsrfCookieName: headerName('xsrfCookieName', options.xsrfCookieName, 'XSRF-TOKEN'),
    xsrfHeaderKey: headerName('xsrfHeaderKey', options.xsrfHeaderKey, 'X-XSRF-TOKEN'),
    jwtHeaderKey: headerName('jwtHeaderKey', options.jwtHeaderKey, 'X-JWT'),
    jwtQuery: options.jwtQuery === false ? undefined : (options.jwtQuery ?? 'token'),
    sendJwtHeader: options.sendJwtHeader ?? false,
    sameSite,
    secureCookies,
    claimsUpdater: toFunction<[Claims], MaybePromise<Claims>>(options.claimsUpdater, 'update'),
    verifiedTokenCacheSize: wholeNumber('verifiedTokenCacheSize', options.verifiedTokenCacheSize, 10_000),
  };
}
