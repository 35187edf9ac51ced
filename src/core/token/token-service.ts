import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuthError, configError, type AuthErrorReason } from '../../base/errors';
import { appendSetCookie, readCookie, serializeCookie, type CookieAttributes } from '../../internal/cookies';
import { randomId, safeEqual } from '../../internal/random';
import type { ResolvedTokenOptions } from './token-options';
import { claimsShapeError, cloneClaims, isPlainObject, type Claims } from './claims';
import { HS256_HEADER, hasHs256Signature, signHs256 } from './hs256';
import { KeyCache } from './key-cache';
import type { User } from './user';
import { VerifiedTokens } from './verified-tokens';

/** How long a login may take between `/login` and `/callback`. */
export const HANDSHAKE_DURATION_MS = 30 * 60_000;

/** The longest token accepted, in characters. */
export const MAX_TOKEN_LENGTH = 8192;

/** Where a token was read from. */
export type TokenSource = 'query' | 'header' | 'cookie';

/** A token read from a request and checked. */
export interface ReadToken {
  /** The raw JWT. */
  token: string;
  /** Its verified claims. */
  claims: Claims;
  /** Where it came from. */
  source: TokenSource;
  /** `true` for a cookie token past `exp` (still within the refresh window). */
  expired: boolean;
}

/** The options the token service reads: its own, resolved (see `token-options.ts`). */
export type TokenOptions = ResolvedTokenOptions;

/** Clock skew tolerated on `nbf`, in seconds. */
const NBF_LEEWAY_SECONDS = 60;

const unauthorized = (message: string, cause?: unknown, reason: AuthErrorReason = 'token_invalid'): AuthError => new AuthError('unauthorized', message, { cause, reason });
/** A refusal for a time or audience problem: expired tokens say so. */
const timesRefusal = (problem: string): AuthError => unauthorized(problem, undefined, problem === TOKEN_EXPIRED ? 'token_expired' : 'token_invalid');
const TOKEN_EXPIRED = 'token is expired';
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Where segments are decoded: a token is at most {@link MAX_TOKEN_LENGTH} characters, so a segment fits. */
const segmentBytes = Buffer.alloc(Math.ceil((MAX_TOKEN_LENGTH * 3) / 4));

/** The value of each base64url character (RFC 4648 section 5) by its code, -1 for any other code below 128. */
const BASE64URL_VALUES = new Int8Array(128).fill(-1);
// eslint-disable-next-line no-restricted-syntax -- an index
for (const [value, char] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) BASE64URL_VALUES[char.charCodeAt(0)] = value;
const BASE64URL_ONLY = /^[A-Za-z0-9_-]*$/;

/**
 * Whether `segment` is canonical unpadded base64url (RFC 7515 section 2): its alphabet only, no
 * padding, whitespace or line breaks, and zero bits after the last byte. So one set of claims has
 * exactly one accepted encoding, as go-pkgz/auth decides too. (A regular expression: twice as fast
 * as a loop over the characters, and this runs for every token the cache has not seen.)
 */
function isCanonicalBase64url(segment: string): boolean {
  const tail = segment.length % 4;
  if (tail === 1 || !BASE64URL_ONLY.test(segment)) return false;
  // Two characters carry 12 bits for one byte, three carry 18 for two: the rest must be zero.
  return tail === 0 || ((BASE64URL_VALUES[segment.charCodeAt(segment.length - 1)] as number) & (tail === 2 ? 0x0f : 0x03)) === 0;
}

/** The JSON value of a base64url token segment; `undefined` when it is empty, too long, not canonical base64url or no JSON. */
function decodeSegment(segment: string | undefined): unknown {
  if (segment === undefined || segment.length === 0 || segment.length > MAX_TOKEN_LENGTH || !isCanonicalBase64url(segment)) return undefined;
  try {
    // Into one buffer kept for this: a Buffer per token would cost the garbage collector more than the decoding.
    const n = segmentBytes.write(segment, 0, 'base64url');
    return JSON.parse(segmentBytes.toString('utf8', 0, n));
  } catch {
    return undefined;
  }
}

/** What a service token says: the service it is for, what it may do, how long it lives. */
export interface ServiceTokenOptions {
  /** The service (`aud`), e.g. `https://billing.internal`. */
  audience: string;
  /** What the service lets it do (`scope`). @default [] */
  scopes?: string[] | undefined;
  /** Lifetime in ms, 1 second to 1 hour. @default 5 minutes */
  ttl?: number | undefined;
}

/** Signs service tokens (the identity provider plugin registers one). */
export type ServiceTokenSigner = (user: User, options: ServiceTokenOptions) => Promise<string>;

/**
 * Makes, reads and clears session tokens: HS256 JWTs in the `JWT` cookie (or a header), with the
 * token id in the script-readable `XSRF-TOKEN` cookie for the double-submit check.
 */
export class TokenService {
  private readonly keys = new KeyCache();
  /** Tokens whose signature was checked, with the secret that checked it. */
  private readonly verified: VerifiedTokens | undefined;

  private readonly jwtHeader: string;
  private readonly xsrfHeader: string;

  private serviceSigner: ServiceTokenSigner | undefined;

  /** @param options - resolved options of the auth service. */
  constructor(private readonly options: TokenOptions) {
    this.jwtHeader = options.jwtHeaderKey.toLowerCase();
    this.verified = options.verifiedTokenCacheSize > 0 ? new VerifiedTokens(options.verifiedTokenCacheSize) : undefined;
    this.xsrfHeader = options.xsrfHeaderKey.toLowerCase();
  }

  /** Lets the identity provider sign service tokens ({@link TokenService.forService}). */
  useServiceSigner(signer: ServiceTokenSigner): void {
    this.serviceSigner = signer;
  }

  /**
   * A short token that lets another service (an API in any language) act for `user`: a JWT of
   * type `at+jwt` signed with the identity provider's keys (ES256 or EdDSA), which the service
   * checks from the provider's JWKS; never the HS256 secret. Needs the identity provider plugin.
   */
  forService(user: User, options: ServiceTokenOptions): Promise<string> {
    if (this.serviceSigner === undefined) return Promise.reject(configError('auth.tokens.forService() needs the identity provider: createAuth({ plugins: [identityProvider({...})] })'));
    return this.serviceSigner(user, options);
  }

  /** Signs claims as they are (HS256). Refuses a user token whose `aud` is not allowed. */
  async sign(claims: Claims): Promise<string> {
    const aud = claims.aud;
    // An empty aud is one value: go-pkgz/auth's direct login without `aud` makes such tokens, and a refresh keeps them.
    if (claims.user !== undefined && typeof aud !== 'string') throw new AuthError('internal', 'a user token needs exactly one aud');
    this.checkAudience(aud);
    const key = this.keys.get(await this.signingSecret(aud ?? ''));
    return signHs256(claims, key);
  }

  /**
   * Verifies a token and returns its claims. Only HS256 is accepted; `exp` must be a number and,
   * unless `allowExpired`, in the future; `aud` must be a single allowed value.
   */
  async parse(token: string, allowExpired = false): Promise<Claims> {
    if (token.length > MAX_TOKEN_LENGTH) throw unauthorized('token is too large');
    const known = this.verified?.get(token);
    if (known !== undefined) {
      // The signature was checked before; the secret must still be the one that checked it.
      const read = this.readSecret(known.aud ?? '');
      const secret = typeof read === 'string' ? read : await read;
      if (secret === known.secret) return this.checkTimesAndAudience(cloneClaims(known.claims), known.aud, allowExpired);
      this.verified?.delete(token);
    }
    return this.verify(token, allowExpired);
  }

  /**
   * The request's token when it can be accepted without waiting: the secret reader answers
   * synchronously, the token is good and unexpired, XSRF matches. A token seen before comes from
   * the verified-token cache; any other is verified here, in the same call. `undefined` in every
   * other case, also for every failure, so that {@link TokenService.read} decides (and says why).
   * Claims from the cache are frozen (so is their user): read them, copy what you keep; any
   * others are the caller's.
   */
  readNow(req: IncomingMessage): Readonly<Claims> | undefined {
    const carried = this.queryToken(req) ?? this.headerToken(req);
    const token = carried ?? readCookie(req, this.options.jwtCookieName);
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    let claims: Readonly<Claims> | undefined;
    try {
      claims = this.cachedClaims(token) ?? this.verifyNow(token);
    } catch {
      return undefined;
    }
    if (claims === undefined || (carried === undefined && !this.xsrfPasses(req, claims))) return undefined;
    return claims;
  }

  /** The cache's claims of a token verified before under the secret that is still current and unexpired; throws on any doubt. */
  private cachedClaims(token: string): Readonly<Claims> | undefined {
    const known = this.verified?.get(token);
    if (known === undefined) return undefined;
    const secret = this.readSecret(known.aud ?? '');
    if (secret !== known.secret) {
      if (typeof secret !== 'string') secret.catch(() => undefined);
      throw unauthorized('the secret changed');
    }
    const problem = this.timesOrAudienceProblem(known.claims, known.aud, false);
    if (problem !== undefined) throw timesRefusal(problem);
    return known.claims;
  }

  /** {@link TokenService.verify} without waiting: `undefined` when the secret reader answers with a promise. */
  private verifyNow(token: string): Claims | undefined {
    const checked = this.verify(token, false);
    if (!(checked instanceof Promise)) return checked;
    checked.catch(() => undefined);
    return undefined;
  }

  /**
   * Checks a token not found in the verified-token cache: header, payload shape, signature, times,
   * audience. Synchronous (and throwing) when the secret reader is; a promise otherwise.
   */
  private verify(token: string, allowExpired: boolean): Claims | Promise<Claims> {
    const firstDot = token.indexOf('.');
    const lastDot = token.indexOf('.', firstDot + 1);
    if (firstDot <= 0 || lastDot === -1 || token.indexOf('.', lastDot + 1) !== -1) throw unauthorized('token is malformed');
    // Tokens signed here carry exactly this header; any other is decoded and must say HS256.
    if (token.slice(0, firstDot) !== HS256_HEADER) {
      const header = decodeSegment(token.slice(0, firstDot));
      if (!isPlainObject(header) || header.alg !== 'HS256') throw unauthorized('unexpected signing method');
    }
    const payload = decodeSegment(token.slice(firstDot + 1, lastDot));
    if (!isPlainObject(payload)) throw unauthorized('token is malformed');
    const aud = this.singleAudience(payload.aud);
    const secret = this.readSecret(aud ?? '');
    if (typeof secret === 'string') return this.checkSigned(token, lastDot, payload, aud, secret, allowExpired);
    return secret.then((value) => this.checkSigned(token, lastDot, payload, aud, value, allowExpired));
  }

  /** The rest of {@link TokenService.verify} once the secret is known. */
  private checkSigned(token: string, lastDot: number, payload: Record<string, unknown>, aud: string | undefined, secret: string, allowExpired: boolean): Claims {
    if (!hasHs256Signature(token, lastDot, this.keys.get(secret))) throw unauthorized('token is invalid');
    const shapeError = claimsShapeError(payload);
    if (shapeError) throw unauthorized(`token claims are malformed: ${shapeError}`);
    if (payload.user !== undefined && aud === undefined) throw unauthorized('a user token needs an aud');
    const claims = payload as Claims;
    if (aud === undefined) delete claims.aud;
    else claims.aud = aud;
    const checked = this.checkTimesAndAudience(claims, aud, allowExpired);
    this.verified?.offer(token, checked, aud, secret);
    return checked;
  }

  /** The secret for checking a token of `aud`: no await when the reader answers synchronously (the usual case). */
  private readSecret(aud: string): string | Promise<string> {
    let secret: string | Promise<string>;
    try {
      secret = this.options.secretReader(aud);
    } catch (err) {
      throw unauthorized("can't get the signing secret", err);
    }
    if (typeof secret === 'string' && secret !== '') return secret;
    return Promise.resolve(secret)
      .then((value) => {
        if (typeof value !== 'string' || value === '') throw new AuthError('internal', 'secretReader returned no secret');
        return value;
      })
      .catch((err: unknown) => {
        throw unauthorized("can't get the signing secret", err);
      });
  }

  private checkTimesAndAudience(claims: Claims, aud: string | undefined, allowExpired: boolean): Claims {
    const problem = this.timesOrAudienceProblem(claims, aud, allowExpired);
    if (problem !== undefined) throw timesRefusal(problem);
    return claims;
  }

  /** What is wrong with a token's times or audience (the reason answered), or `undefined`. */
  private timesOrAudienceProblem(claims: Readonly<Claims>, aud: string | undefined, allowExpired: boolean): string | undefined {
    if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) return 'token has no valid exp';
    const now = nowSeconds();
    if (claims.nbf !== undefined && claims.nbf > now + NBF_LEEWAY_SECONDS) return 'token is not valid yet';
    if (!allowExpired && claims.exp <= now) return TOKEN_EXPIRED;
    return this.audienceAllowed(aud) ? undefined : 'aud is not allowed';
  }

  /** Whether a cookie token of a user passes the double-submit check: the XSRF header echoes its `jti` (unless exempt). */
  private xsrfPasses(req: IncomingMessage, claims: Readonly<Claims>): boolean {
    return claims.user === undefined || !this.xsrfRequired(req) || this.xsrfHeaderMatches(req, claims);
  }

  /** Whether the XSRF header echoes the token's `jti`, whatever `disableXsrf` and `xsrfIgnoreMethods` say (for credential changes). */
  xsrfHeaderMatches(req: IncomingMessage, claims: Readonly<Claims>): boolean {
    const header = req.headers[this.xsrfHeader];
    return typeof claims.jti === 'string' && claims.jti !== '' && typeof header === 'string' && safeEqual(header, claims.jti);
  }

  /** What a request that failed the XSRF check must send or set instead. */
  private xsrfProblem(req: IncomingMessage): string {
    const header = this.options.xsrfHeaderKey;
    const cookie = this.options.xsrfCookieName;
    if (req.headers[this.xsrfHeader] === undefined) {
      return `xsrf mismatch: send the ${cookie} cookie's value in the ${header} header (for server-rendered pages, set xsrfIgnoreMethods: ['GET', 'HEAD', 'OPTIONS'])`;
    }
    return `xsrf mismatch: the ${header} header is not this session's ${cookie} cookie value`;
  }

  /** How many verified tokens are cached now (bounded by `verifiedTokenCacheSize`). */
  get verifiedCacheSize(): number {
    return this.verified?.size ?? 0;
  }

  /**
   * Completes claims into a session token: issuer, times, token id, then the claims updater.
   * `notAfter` (seconds) caps its expiry: a session's absolute end.
   * @returns the signed token and the claims it carries (not sent anywhere yet).
   */
  async create(base: Claims, notAfter?: number): Promise<{ token: string; claims: Claims }> {
    let claims = this.stamp(base, this.options.tokenDuration);
    if (notAfter !== undefined && (claims.exp as number) > notAfter) claims.exp = notAfter;
    if (this.options.claimsUpdater) {
      const updated = await this.options.claimsUpdater(claims);
      const wrong = isPlainObject(updated) ? claimsShapeError(updated) : 'not an object';
      if (wrong) throw new AuthError('internal', `claimsUpdater must return claims of the token layout (${wrong})`);
      claims = updated as Claims;
    }
    return { token: await this.sign(claims), claims };
  }

  /**
   * {@link TokenService.create} and {@link TokenService.send} in one: the session token goes out as
   * the `JWT` + `XSRF-TOKEN` cookies, or in the JWT header with `sendJwtHeader`.
   */
  async issue(res: ServerResponse, base: Claims): Promise<{ token: string; claims: Claims }> {
    const made = await this.create(base);
    this.send(res, made.token, made.claims);
    return made;
  }

  /** Sends an already signed token the way `issue` does, with `Cache-Control: no-store`. */
  send(res: ServerResponse, token: string, claims: Claims): void {
    if (this.options.sendJwtHeader) {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader(this.options.jwtHeaderKey, token);
      return;
    }
    const maxAge = claims.sess_only ? undefined : Math.floor(this.options.cookieDuration / 1000);
    res.setHeader('Cache-Control', 'no-store');
    appendSetCookie(res, [
      serializeCookie(this.options.jwtCookieName, token, this.cookieAttributes(true, maxAge)),
      serializeCookie(this.options.xsrfCookieName, claims.jti ?? '', this.cookieAttributes(false, maxAge)),
    ]);
  }

  /**
   * Sends a handshake token (a login in progress at `provider`: state, PKCE verifier, where to go
   * after) in the JWT cookie as a session cookie, valid for `durationMs`. No XSRF cookie: it
   * carries no user. `crossSite` makes it SameSite=None; Secure, for providers that come back
   * with a cross-site POST (Apple's form_post); the session cookie keeps its own SameSite.
   * `cookie` puts it in a cookie of its own instead, leaving the session as it is (a login that
   * only tests a connection).
   */
  async sendHandshake(res: ServerResponse, provider: string, claims: Claims, options: { durationMs?: number; crossSite?: boolean; cookie?: string | undefined } = {}): Promise<void> {
    const { cookie, ...rest } = options;
    await this.sendShortLivedCookie(res, cookie ?? this.options.jwtCookieName, { ...claims, auth_provider: { name: provider } }, { durationMs: HANDSHAKE_DURATION_MS, ...rest });
  }

  /**
   * Signs claims as {@link TokenService.signShortLived} does and sends them in the HttpOnly
   * session cookie `name` (no Max-Age); `crossSite` makes it SameSite=None; Secure.
   */
  async sendShortLivedCookie(res: ServerResponse, name: string, claims: Claims, options: { durationMs: number; crossSite?: boolean | undefined }): Promise<void> {
    const token = await this.signShortLived(claims, options.durationMs);
    const attrs = this.cookieAttributes(true, undefined);
    if (options.crossSite) Object.assign(attrs, { sameSite: 'none', secure: true });
    appendSetCookie(res, [serializeCookie(name, token, attrs)]);
  }

  /** The claims of the unexpired token in cookie `name`; `undefined` when there is none or it is bad. */
  async readShortLivedCookie(req: IncomingMessage, name: string): Promise<Claims | undefined> {
    const token = readCookie(req, name);
    return token ? this.parse(token).catch(() => undefined) : undefined;
  }

  /** Clears cookie `name` (empty value, Max-Age=0). */
  clearCookie(res: ServerResponse, name: string): void {
    appendSetCookie(res, [serializeCookie(name, '', this.cookieAttributes(true, 0))]);
  }

  /**
   * Signs claims that are no session (handshakes, confirmation tokens) as they are: issuer, times
   * and a fresh token id, valid `durationMs`; no claims updater.
   */
  signShortLived(claims: Claims, durationMs: number): Promise<string> {
    return this.sign(this.stamp({ ...claims, iss: undefined, jti: undefined }, durationMs));
  }

  /** Adds issuer (unless set), issue time, validity and token id (unless set). */
  private stamp(base: Claims, durationMs: number): Claims {
    const now = nowSeconds();
    const { iss, aud, exp: _exp, nbf: _nbf, iat: _iat, jti, ...rest } = base;
    // In go-pkgz/auth's order: iss, aud, exp, nbf, iat, jti, then the rest as given.
    const claims: Claims = { iss: iss ?? this.options.issuer };
    if (aud !== undefined) claims.aud = aud;
    return Object.assign(claims, { exp: now + Math.ceil(durationMs / 1000), nbf: now, iat: now, jti: jti ?? randomId() }, rest);
  }

  /**
   * The unexpired handshake token of the request's JWT cookie; `undefined` when there is none.
   * @throws AuthError 403 when the login in progress was started at another provider than `provider`
   * (its callback must not complete it).
   * `cookie` reads one kept apart from the session (see {@link TokenService.sendHandshake}).
   */
  async readHandshake(req: IncomingMessage, provider: string, cookie?: string): Promise<Claims | undefined> {
    const claims = await this.readShortLivedCookie(req, cookie ?? this.options.jwtCookieName);
    if (claims?.handshake === undefined || claims.user !== undefined) return undefined;
    if (claims.auth_provider?.name !== provider) throw new AuthError('forbidden', 'the login in progress was started at another provider: start the login again');
    return claims;
  }

  /** Clears both cookies (empty value, Max-Age=0, Expires in 1970), with `Cache-Control: no-store`. */
  reset(res: ServerResponse): void {
    res.setHeader('Cache-Control', 'no-store');
    appendSetCookie(res, [serializeCookie(this.options.jwtCookieName, '', this.cookieAttributes(true, 0)), serializeCookie(this.options.xsrfCookieName, '', this.cookieAttributes(false, 0))]);
  }

  /**
   * Reads the request's token: query `token`, then the `X-JWT` header, then the `JWT` cookie.
   * Query and header tokens must be unexpired. A cookie token may be expired within the refresh
   * window; with a user in it, the XSRF header must echo its `jti`.
   * @returns `undefined` when the request carries no token; throws a 401 {@link AuthError} for a bad one.
   */
  async read(req: IncomingMessage): Promise<ReadToken | undefined> {
    const found = this.find(req);
    if (found === undefined) return undefined;
    const { token, source } = found;
    if (source !== 'cookie') {
      return { token, source, claims: await this.parse(token), expired: false };
    }
    const read = await this.readCookieToken(token);
    if (!this.xsrfPasses(req, read.claims)) throw unauthorized(this.xsrfProblem(req), undefined, req.headers[this.xsrfHeader] === undefined ? 'xsrf_missing' : 'xsrf_mismatch');
    return read;
  }

  /**
   * The session cookie's token on a page the browser navigates to (an identity provider's login
   * step): the cookie only, without the XSRF check, which a navigation cannot pass. Fit only for
   * answers that by themselves neither change nor reveal anything to another site.
   * @returns `undefined` without a cookie; throws a 401 {@link AuthError} for a bad one.
   */
  async readNavigation(req: IncomingMessage): Promise<ReadToken | undefined> {
    const token = readCookie(req, this.options.jwtCookieName);
    return token ? this.readCookieToken(token) : undefined;
  }

  /** A cookie token: good signature, expired at most by the refresh window. */
  private async readCookieToken(token: string): Promise<ReadToken> {
    const claims = await this.parse(token, true);
    const exp = claims.exp as number;
    const now = nowSeconds();
    if (exp + Math.floor(this.options.cookieDuration / 1000) < now) throw unauthorized(TOKEN_EXPIRED, undefined, 'token_expired');
    return { token, source: 'cookie', claims, expired: exp <= now };
  }

  /**
   * The claims of the request's token if its signature is good, expired or not, without the XSRF
   * check; `undefined` for no token or a bad one. For ending a session, which only a request of
   * this site can ask for.
   */
  async peek(req: IncomingMessage): Promise<Claims | undefined> {
    const found = this.find(req);
    return found === undefined ? undefined : this.parse(found.token, true).catch(() => undefined);
  }

  private find(req: IncomingMessage): { token: string; source: TokenSource } | undefined {
    const fromQuery = this.queryToken(req);
    if (fromQuery !== undefined) return { token: fromQuery, source: 'query' };
    const fromHeader = this.headerToken(req);
    if (fromHeader !== undefined) return { token: fromHeader, source: 'header' };
    const fromCookie = readCookie(req, this.options.jwtCookieName);
    return fromCookie ? { token: fromCookie, source: 'cookie' } : undefined;
  }

  /** The token of query `token`, if any. */
  private queryToken(req: IncomingMessage): string | undefined {
    if (this.options.jwtQuery === undefined) return undefined;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    return q === -1 ? undefined : new URLSearchParams(url.slice(q + 1)).get(this.options.jwtQuery) || undefined;
  }

  /** The token of the `X-JWT` header, if any. */
  private headerToken(req: IncomingMessage): string | undefined {
    const fromHeader = req.headers[this.jwtHeader];
    return typeof fromHeader === 'string' && fromHeader !== '' ? fromHeader : undefined;
  }

  private xsrfRequired(req: IncomingMessage): boolean {
    if (this.options.disableXsrf) return false;
    const ignored = this.options.xsrfIgnoreMethods;
    return ignored.size === 0 || !ignored.has((req.method ?? 'GET').toUpperCase());
  }

  private cookieAttributes(httpOnly: boolean, maxAge: number | undefined): CookieAttributes {
    return {
      httpOnly,
      secure: this.options.secureCookies,
      sameSite: this.options.sameSite,
      domain: this.options.jwtCookieDomain,
      maxAge,
    };
  }

  private singleAudience(aud: unknown): string | undefined {
    if (aud === undefined) return undefined;
    if (typeof aud === 'string') return aud;
    if (Array.isArray(aud) && aud.length === 1 && typeof aud[0] === 'string') return aud[0];
    throw unauthorized('aud must be a single value');
  }

  private checkAudience(aud: string | undefined): void {
    if (!this.audienceAllowed(aud)) throw new AuthError('forbidden', `aud ${JSON.stringify(aud ?? '')} is not allowed`);
  }

  private audienceAllowed(aud: string | undefined): boolean {
    const allowed = this.options.audiences;
    return allowed === undefined || (aud !== undefined && allowed.includes(aud));
  }

  /** The secret that signs tokens of `aud` (from `secretReader`). */
  async signingSecret(aud: string): Promise<string> {
    const secret = await this.options.secretReader(aud);
    if (typeof secret !== 'string' || secret === '') throw new AuthError('internal', 'secretReader returned no secret');
    return secret;
  }
}
