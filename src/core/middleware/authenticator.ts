import { clientIp } from '../../internal/client-ip';
import { count } from '../../base/telemetry';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { AuthError, type AuthErrorReason } from '../../base/errors';
import type { ResolvedMiddlewareOptions } from './middleware-options';
import type { ResolvedSessionOptions } from '../sessions/session-options';
import { isPlainObject, type Claims } from '../token/claims';
import type { ReadToken, TokenService } from '../token/token-service';
import { cloneUser, setAudience, type User } from '../token/user';
import { identityKey } from '../../internal/email-address';
import { checkBasicAuth, parseBasicAuth } from './basic-auth';
import type { AuthRateLimit, RateLimiter } from '../limits/rate-limiter';
import { stateCall } from '../state/state-call';
import type { RefreshCache, RefreshedToken } from './refresh-cache';
import { type Logger, logTo } from '../../base/logger';
import type { CrossSitePolicy } from '../../internal/cross-origin';
import { jtiHash, type SessionRegistry, type SessionStatus } from '../sessions/session-registry';
import type { RevocationCache } from '../sessions/revocation-cache';

/**
 * A check a plugin puts behind authentication (`m.org('admin')`): given the request, its user and
 * the token's claims (`undefined` for basic auth), a refusal or `undefined` to let it through.
 */
export type RequestCheck = (req: IncomingMessage, user: User, claims: Readonly<Claims> | undefined) => AuthError | undefined | Promise<AuthError | undefined>;

/**
 * A credential carried in `Authorization: Bearer` that a plugin resolves (API keys): `m.auth` lets
 * its owner through; the session routes and step-up never accept it.
 */
export interface BearerResolver {
  /** Whether the request carries a credential of this resolver. */
  carries(req: IncomingMessage): boolean;
  /** Its user when memory can tell at once (the usual case); `undefined`: ask {@link BearerResolver.resolve}. */
  now(req: IncomingMessage): User | undefined;
  /** Its user; a 401 AuthError for an unknown, expired or deleted one. */
  resolve(req: IncomingMessage): Promise<User>;
}

/** Makes a {@link RequestCheck} from the arguments of a middleware factory such as `m.org(...roles)`. */
export type GuardFactory = (...args: string[]) => RequestCheck;

/** What the authenticator reads: the middleware's own options, the session rules, and the service's parts it uses. */
export type AuthenticatorOptions = ResolvedMiddlewareOptions &
  Pick<ResolvedSessionOptions, 'unknownSessions' | 'sessionMaxAgeSeconds' | 'stepUpMaxAgeSeconds'> & { refreshCache: RefreshCache; logger: Logger; crossSite: CrossSitePolicy };

/** The session side of an {@link Authenticator}: the registry, and the cache of `'every-request'` mode. */
export interface SessionChecks {
  registry: SessionRegistry;
  /** Present in `'every-request'` mode. */
  everyRequest: RevocationCache | undefined;
  /** Whether the user directory has the user banned (checked at every refresh). */
  isBanned(userId: string): Promise<boolean>;
  /** Told of every refresh refused (the security event), with the code it was refused with. */
  refreshRefused?(claims: Claims, reason: string): void;
  /** The action guards (a CAPTCHA) around a basic-auth password check, as around every other login. */
  basicLoginGuard?: { check(req: Request): Promise<void>; failed(req: Request): Promise<void>; succeeded(req: Request): Promise<void> };
}

const unauthorized = (message: string, reason: AuthErrorReason): AuthError => new AuthError('unauthorized', message, { reason });

/** Whether the claims name their session (`jti`). */
const hasJti = (claims: Readonly<Claims>): claims is Readonly<Claims> & { jti: string } => typeof claims.jti === 'string' && claims.jti !== '';

/** The provider of a login token: `auth_provider`, else the user id's prefix (tokens of older go-pkgz/auth versions). */
const providerOf = (claims: Readonly<Claims>): string => claims.auth_provider?.name ?? claims.user?.id.split('_')[0] ?? '';

/** A request's login: its user, and the token's claims (`undefined` for basic auth and bearer credentials, which have none). */
export interface RequestLogin {
  user: User;
  claims: Readonly<Claims> | undefined;
}

/** How long an instance waits for the refresh another instance claimed. */
const REFRESH_WAIT_MS = 3000;

/**
 * Decides who a request belongs to: basic auth, then the token (refreshing an expired cookie
 * token once), then the validator. Shared by the middleware and the `/user` route.
 */
export class Authenticator {
  private readonly refreshing = new Map<string, Promise<RefreshedToken>>();
  private bearer: BearerResolver | undefined;

  /**
   * @param tokens - the token service.
   * @param options - resolved options.
   * @param isProviderActive - whether a provider name is still registered.
   * @param limiter - counts failed basic-auth attempts.
   * @param sessions - the session registry and, in `'every-request'` mode, its cache.
   */
  constructor(
    private readonly tokens: TokenService,
    private readonly options: AuthenticatorOptions,
    private readonly isProviderActive: (name: string) => boolean,
    private readonly limiter: RateLimiter<AuthRateLimit>,
    private readonly sessions: SessionChecks,
  ) {}

  /** Accepts the bearer credentials of a plugin (API keys) in the middleware. */
  useBearer(resolver: BearerResolver): void {
    this.bearer = resolver;
  }

  /**
   * The request's login when memory decides it at once (a valid token of a session known to be
   * live, a key seen lately): the same rules as {@link Authenticator.login}, never a store read.
   * `undefined` whenever `login` must decide, which it then does from the start. Never throws,
   * never answers.
   */
  loginNow(req: Request): RequestLogin | undefined {
    if (this.bearer !== undefined && req.headers.authorization !== undefined && this.bearer.carries(req)) {
      const user = this.bearer.now(req);
      return user && { user, claims: undefined };
    }
    if (this.basicAuthOn && req.headers.authorization !== undefined) return undefined;
    if (this.options.validator !== undefined) return undefined;
    const claims = this.tokens.readNow(req);
    if (claims === undefined || this.notALogin(claims) !== undefined) return undefined;
    const user = claims.user as User;
    const cache = this.sessions.everyRequest;
    if (cache !== undefined) {
      const status = hasJti(claims) ? cache.known(claims.jti, user.id) : 'unknown';
      if (status === undefined || this.sessionRefusal(status) !== undefined) return undefined;
    }
    // The verified-token cache's own user is frozen: the handler gets a copy it may change.
    return { user: setAudience(Object.isFrozen(user) ? cloneUser(user) : user, claims.aud), claims };
  }

  /**
   * The request's login, in one order: a plugin's bearer credential (API keys), basic auth, then
   * the token (refreshed when due) with its session and the validator. A 401 {@link AuthError}
   * when there is no acceptable one.
   */
  async login(req: Request, res: ServerResponse): Promise<RequestLogin> {
    if (this.bearer?.carries(req)) return { user: await this.bearer.resolve(req), claims: undefined };
    if (this.basicAuthOn) {
      const basic = parseBasicAuth(req);
      if (basic) return { user: await this.basicLogin(req, basic), claims: undefined };
    }
    const claims = await this.tokenClaims(req, res);
    return { user: setAudience({ ...(claims.user as User) }, claims.aud), claims };
  }

  private get basicAuthOn(): boolean {
    return this.options.adminPasswd !== undefined || this.options.basicAuthChecker !== undefined;
  }

  /** The claims of the request's acceptable login token (refreshed when due); 401 without one. Basic auth is no token. */
  async tokenClaims(req: Request, res: ServerResponse): Promise<Claims> {
    const read = await this.tokens.read(req);
    if (read === undefined) throw unauthorized('token not found', 'token_missing');
    return this.acceptable(read, res);
  }

  /**
   * The claims of the session cookie on a page the browser navigates to (the identity provider's
   * login step), refreshed when due, with every session check; no XSRF header is possible there.
   * 401 without a login.
   */
  async navigationClaims(req: Request, res: ServerResponse): Promise<Claims> {
    const read = await this.tokens.readNavigation(req);
    if (read === undefined) throw unauthorized('token not found', 'token_missing');
    return this.acceptable(read, res);
  }

  /**
   * The claims of a login that may change credentials (step-up): the session cookie with its XSRF
   * header (a token in `X-JWT` or the URL can be carried off; the cookie cannot be read by a
   * script), a session the registry knows as live whatever `revocationCheck` is, and a login
   * (`auth_time`, kept by refreshes) no older than `stepUpMaxAge`. Else 403 `step_up_required`.
   */
  async stepUpClaims(req: Request, res: ServerResponse, options: { anyAge?: boolean } = {}): Promise<Claims> {
    const read = await this.tokens.read(req);
    if (read === undefined) throw unauthorized('token not found', 'token_missing');
    const claims = await this.acceptable(read, res);
    const stepUp = (why: string): AuthError => {
      count('authgate.step_ups', { 'authgate.outcome': 'required' });
      return new AuthError('forbidden', `${why}: log in again to change your credentials`, { reason: 'step_up_required' });
    };
    if (read.source !== 'cookie' || !this.tokens.xsrfHeaderMatches(req, claims)) throw stepUp('a credential change needs the session cookie with its XSRF header');
    if (claims.act !== undefined) throw stepUp('an admin acting as this user cannot change its credentials');
    const jti = claims.jti;
    if (typeof jti !== 'string' || jti === '' || (await this.sessions.registry.status(jti, (claims.user as User).id)) !== 'active') throw stepUp('this session is not a live one');
    if (!options.anyAge && !this.isRecentLogin(claims)) throw stepUp(`the login is more than ${ageInWords(this.options.stepUpMaxAgeSeconds)} old`);
    return claims;
  }

  /**
   * Whether the login of these claims (`auth_time`, kept by refreshes, renewed by a second factor)
   * is no older than `stepUpMaxAge`: what step-up asks of anything that creates a credential.
   */
  isRecentLogin(claims: Claims): boolean {
    const age = Math.floor(Date.now() / 1000) - (typeof claims.auth_time === 'number' ? claims.auth_time : 0);
    return age <= this.options.stepUpMaxAgeSeconds;
  }

  /**
   * Steps the request's session up after a second proof of the user (a second factor): the same
   * session in a new token whose login time (`auth_time`) is now, sent as the cookies.
   */
  async renewLogin(res: ServerResponse, claims: Claims): Promise<void> {
    await this.reissue(res, claims, { auth_time: Math.floor(Date.now() / 1000) });
  }

  /**
   * Sends the same session in a new token, as the cookies, with `changes` to its claims (the
   * active organization, a fresh login time); `sessionMaxAge` still counts from the original login.
   */
  async reissue(res: ServerResponse, claims: Claims, changes: Partial<Claims>): Promise<Claims> {
    const { exp: _exp, iat: _iat, nbf: _nbf, ...base } = claims;
    const renewed = await this.tokens.create({ ...base, ...changes }, this.sessionEnd(claims));
    this.tokens.send(res, renewed.token, renewed.claims);
    return renewed.claims;
  }

  /**
   * Whether a user token's session is known to be over: in `'every-request'` mode, a revoked
   * session or an unknown one under `unknownSessions: 'reject'`; in `'refresh'` mode, never (that
   * is decided at the refresh). For answers that read a token without the middleware (`/status`).
   */
  async isSessionOver(claims: Claims): Promise<boolean> {
    const cache = this.sessions.everyRequest;
    if (cache === undefined || claims.user === undefined) return false;
    try {
      await this.checkSession(claims, cache);
      return false;
    } catch (err) {
      if (err instanceof AuthError && err.status === 401) return true;
      throw err;
    }
  }

  /** Revokes the session of the request's token, if it carries a good one (expired or not); its claims, when it did. */
  async endSession(req: Request): Promise<Claims | undefined> {
    const claims = await this.tokens.peek(req);
    if (claims?.user === undefined || typeof claims.jti !== 'string' || claims.jti === '') return undefined;
    await this.sessions.registry.revoke(claims.jti);
    return claims;
  }

  /**
   * Basic auth: a browser resends cached credentials with any request, so a cross-site write is
   * refused; failures count against per-IP and per-user limits, checked before the next attempt.
   */
  private async basicLogin(req: Request, basic: { user: string; passwd: string }): Promise<User> {
    if (this.options.crossSite.isCrossSiteWrite(req)) throw new AuthError('forbidden', 'cross-site request with basic auth refused', { reason: 'cross_site' });
    const ip = clientIp(req);
    await stateCall(async () => {
      await this.limiter.check('basicPerIp', ip);
      await this.limiter.check('basicPerUser', identityKey(basic.user));
    });
    const guard = this.sessions.basicLoginGuard;
    await guard?.check(req);
    let user: User;
    try {
      user = await checkBasicAuth(basic, this.options.adminPasswd, this.options.basicAuthChecker);
    } catch (err) {
      if (err instanceof AuthError && err.status === 401) {
        await stateCall(() => Promise.all([this.limiter.hit('basicPerIp', ip), this.limiter.hit('basicPerUser', identityKey(basic.user))]));
        await guard?.failed(req);
      }
      throw err;
    }
    await guard?.succeeded(req);
    // A checker may return a user of the directory: a ban holds on this path too.
    if (await stateCall(() => this.sessions.isBanned(user.id))) throw new AuthError('unauthorized', 'this account is banned', { reason: 'banned' });
    return user;
  }

  /**
   * Why a token's claims are no login, the rule both paths apply: a handshake token, no user, or
   * a provider that is no longer registered. `undefined` when they are a login.
   */
  private notALogin(claims: Readonly<Claims>): 'handshake' | 'no user' | 'inactive provider' | undefined {
    if (claims.handshake !== undefined) return 'handshake';
    if (claims.user === undefined || typeof claims.user !== 'object') return 'no user';
    // Without auth_provider (tokens of older go-pkgz/auth versions), the provider is the user id's prefix, as go-pkgz judges it.
    return this.isProviderActive(providerOf(claims)) ? undefined : 'inactive provider';
  }

  /** The rule of `'every-request'` mode: a revoked session is refused, and an unknown one under `unknownSessions: 'reject'`. */
  private sessionRefusal(status: SessionStatus): AuthError | undefined {
    if (status === 'revoked') return unauthorized('the session was revoked', 'session_revoked');
    if (status === 'unknown' && this.options.unknownSessions === 'reject') return unauthorized('the token belongs to no known session', 'session_unknown');
    return undefined;
  }

  private async acceptable(read: ReadToken, res: ServerResponse): Promise<Claims> {
    let { claims, token } = read;
    const notALogin = this.notALogin(claims);
    if (notALogin === 'inactive provider') {
      this.tokens.reset(res);
      throw unauthorized(`provider ${providerOf(claims)} is not active`, 'token_invalid');
    }
    if (notALogin !== undefined) throw unauthorized(notALogin === 'handshake' ? 'a handshake token is not a login' : 'no user in the token', 'token_invalid');
    try {
      if (read.expired) {
        const refreshed = await this.refresh(read);
        count('authgate.token.refreshes', { 'authgate.outcome': 'refreshed' });
        this.tokens.send(res, refreshed.token, refreshed.claims);
        ({ claims, token } = refreshed);
      } else if (this.sessions.everyRequest !== undefined) {
        const checked = this.checkSession(claims, this.sessions.everyRequest);
        if (checked !== undefined) await checked;
      }
    } catch (err) {
      if (err instanceof AuthError && err.status === 401) this.tokens.reset(res);
      throw err;
    }
    if (this.options.validator && !(await this.options.validator(token, claims))) {
      this.tokens.reset(res);
      throw unauthorized('token rejected by the validator', 'token_rejected');
    }
    return claims;
  }

  /**
   * `'every-request'` mode: the session of the claims by {@link Authenticator.sessionRefusal}. No
   * promise when the cache knows the session (the usual case).
   */
  private checkSession(claims: Claims, cache: RevocationCache): void | Promise<void> {
    const status = hasJti(claims) ? cache.status(claims.jti, (claims.user as User).id) : 'unknown';
    const judge = (known: SessionStatus): void => {
      const refusal = this.sessionRefusal(known);
      if (refusal !== undefined) throw refusal;
    };
    if (typeof status === 'string') return judge(status);
    return status.then(judge);
  }

  /**
   * One refresh per expired token, even when many requests carry it at once, and never of a
   * revoked session (not even from the refresh cache).
   */
  private async refresh(read: ReadToken): Promise<RefreshedToken> {
    try {
      return await this.refreshOnce(read);
    } catch (err) {
      if (err instanceof AuthError && err.status === 401) this.sessions.refreshRefused?.(read.claims, err.reason);
      throw err;
    }
  }

  private async refreshOnce(read: ReadToken): Promise<RefreshedToken> {
    const end = this.sessionEnd(read.claims);
    if (end !== undefined && end <= Math.floor(Date.now() / 1000)) throw unauthorized('the session is older than sessionMaxAge: log in again', 'session_expired');
    // A ban ends every session too; the refresh says why.
    if (await this.sessions.isBanned((read.claims.user as User).id)) throw unauthorized('this account is banned', 'banned');
    const claims = read.claims;
    const status = hasJti(claims) ? await this.sessions.registry.status(claims.jti, (claims.user as User).id) : 'unknown';
    const refusal = this.sessionRefusal(status);
    if (refusal !== undefined) throw refusal;
    const h = status === 'active' && hasJti(claims) ? jtiHash(claims.jti) : undefined;
    const cached = await this.options.refreshCache.get(read.token);
    if (cached) return cached;
    let pending = this.refreshing.get(read.token);
    if (pending === undefined) {
      pending = (h === undefined ? this.refreshUntracked(read) : this.refreshSession(read, h)).finally(() => this.refreshing.delete(read.token));
      this.refreshing.set(read.token, pending);
    }
    return pending;
  }

  /**
   * A recorded session's token is refreshed once, ever: the one caller in any instance that
   * claims it makes the new token; the others get it from the refresh cache while it is there,
   * and a 401 after (a copy of an old token is not a way back in).
   */
  private async refreshSession(read: ReadToken, h: string): Promise<RefreshedToken> {
    const exp = read.claims.exp as number;
    const registry = this.sessions.registry;
    let claim = await registry.claimRefresh(h, exp);
    // A claim left unfinished (its claimant failed, say on a store outage) would end the session for good.
    if (!claim.won && !claim.done && Date.now() - claim.claimedAt > REFRESH_WAIT_MS) claim = await registry.takeOverRefresh(h, exp, claim.claimedAt);
    if (!claim.won) {
      const done = claim.done || Date.now() - claim.claimedAt > REFRESH_WAIT_MS;
      const cached = done ? await this.options.refreshCache.get(read.token) : await this.awaitRefresh(read.token, () => registry.refreshDone(h, exp));
      if (cached) return cached;
      throw unauthorized('this token was refreshed already; log in again', 'session_revoked');
    }
    const refreshed = await this.newToken(read);
    // In the cache before the claim says done, so that whoever sees "done" finds the token.
    await this.options.refreshCache.set(read.token, refreshed);
    if (!(await registry.refreshed(h, exp, claim.claimedAt))) throw unauthorized('the session was revoked', 'session_revoked');
    return refreshed;
  }

  /** A token of no recorded session (accepted by `unknownSessions`): refreshed once per refresh-cache entry, as before sessions. */
  private async refreshUntracked(read: ReadToken): Promise<RefreshedToken> {
    const cache = this.options.refreshCache;
    if (cache.claim !== undefined && !(await cache.claim(read.token))) return this.awaitRefresh(read.token);
    const refreshed = await this.newToken(read);
    await cache.set(read.token, refreshed);
    return refreshed;
  }

  /** When the session of these claims ends under `sessionMaxAge` (seconds); `undefined` without one. */
  private sessionEnd(claims: Claims): number | undefined {
    // An impersonation (an admin acting as the user) ends when its `act` says, whatever else.
    const actEnd = isPlainObject(claims.act) && typeof claims.act.exp === 'number' ? claims.act.exp : undefined;
    const max = this.options.sessionMaxAgeSeconds;
    if (max === undefined) return actEnd;
    const since = typeof claims.auth_time === 'number' ? claims.auth_time : (claims.iat ?? 0);
    return actEnd === undefined ? since + max : Math.min(actEnd, since + max);
  }

  private async newToken(read: ReadToken): Promise<RefreshedToken> {
    const { exp: _exp, iat: _iat, nbf: _nbf, ...base } = read.claims;
    // The refreshed user names its audience, as go-pkgz/auth's refresh writes it.
    if (base.user !== undefined) base.user = setAudience(cloneUser(base.user), base.aud);
    // A session from before auth_time (or from go-pkgz/auth) is dated by the oldest time it shows,
    // so that sessionMaxAge and step-up bound it from now on.
    if (typeof base.auth_time !== 'number' && typeof read.claims.iat === 'number') base.auth_time = read.claims.iat;
    const refreshed = await this.tokens.create(base, this.sessionEnd(read.claims));
    logTo(this.options.logger).debug('token of {user} refreshed', { user: read.claims.user?.id ?? 'unknown' });
    return refreshed;
  }

  /**
   * Another instance claimed the refresh: its result appears in the shared refresh cache; `undefined`
   * when `finished()` says the claimant is done and the cache has no result for this process.
   */
  private async awaitRefresh(token: string): Promise<RefreshedToken>;
  private async awaitRefresh(token: string, finished: () => Promise<boolean>): Promise<RefreshedToken | undefined>;
  private async awaitRefresh(token: string, finished?: () => Promise<boolean>): Promise<RefreshedToken | undefined> {
    const deadline = Date.now() + REFRESH_WAIT_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const done = await this.options.refreshCache.get(token);
      if (done) return done;
      if (finished !== undefined && (await finished())) return this.options.refreshCache.get(token);
    }
    throw new AuthError('unavailable', 'the token refresh did not finish in time, try again');
  }
}

/** A step-up's age limit as the message says it: whole minutes, else seconds (`stepUpMaxAge` may be 10 s). */
function ageInWords(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} seconds`;
}
