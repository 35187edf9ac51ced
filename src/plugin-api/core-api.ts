import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CredentialChange } from '../core/credentials/credential-notices';
import type { AuthEvent, AuthEventType, NewAuthEvent } from '../core/audit/auth-event';
import type { EventClient, EventHandler, EventHandlerOptions, EventListOptions } from '../core/events/event-bus';
import type { LoginRequest } from '../providers/provider';
import type { SessionInfo, Sessions, SessionStatus } from '../core/sessions/session-registry';
import type { Claims } from '../core/token/claims';
import type { ServiceTokenSigner } from '../core/token/token-service';
import type { User } from '../core/token/user';
import type { UserList, UserListOptions } from '../core/users/user-directory';
import type { UserLogin, UserRecord } from '../core/users/user-store';

/**
 * The request's login as a plugin reads it (`context.authenticator`). Every method refreshes an
 * expired cookie token when due and applies every session rule; a 401 AuthError without a login.
 */
export interface PluginAuthenticator {
  /** The claims of the request's login token (cookie with XSRF, `X-JWT` or `?token=`). */
  tokenClaims(req: Request, res: ServerResponse): Promise<Claims>;
  /**
   * The claims of a login that may create or change what grants access (step-up): the session
   * cookie with its XSRF header, a live session, no impersonation, and a login no older than
   * `stepUpMaxAge` unless `anyAge`. Else 403 `step_up_required`.
   */
  stepUpClaims(req: Request, res: ServerResponse, options?: { anyAge?: boolean }): Promise<Claims>;
  /** The claims of the session cookie on a page the browser navigates to (no XSRF header is possible there). */
  navigationClaims(req: Request, res: ServerResponse): Promise<Claims>;
  /** Whether the login of these claims is no older than `stepUpMaxAge`. */
  isRecentLogin(claims: Claims): boolean;
  /** Steps the session up after a second proof of the user: the same session in a new token whose login time is now, sent as the cookies. */
  renewLogin(res: ServerResponse, claims: Claims): Promise<void>;
  /** The same session in a new token with `changes` to its claims (the active organization), sent as the cookies; returns its claims. */
  reissue(res: ServerResponse, claims: Claims, changes: Partial<Claims>): Promise<Claims>;
  /** Revokes the session of the request's token, if it carries a good one (expired or not); its claims, when it did. */
  endSession(req: Request): Promise<Claims | undefined>;
}

/** Tokens and cookies as a plugin makes and reads them (`context.tokens`). */
export interface PluginTokens {
  /** Signs a token of `base` (it gets `iat`, `exp` and a `jti`), living no later than `notAfter` (seconds) when given. */
  create(base: Claims, notAfter?: number): Promise<{ token: string; claims: Claims }>;
  /** Sends a token as the session's cookies (the JWT and the XSRF cookie). */
  send(res: ServerResponse, token: string, claims: Claims): void;
  /** Clears the session's cookies. */
  reset(res: ServerResponse): void;
  /** The claims of the request's token if its signature holds, expired or not (no session rule applied). */
  peek(req: IncomingMessage): Promise<Claims | undefined>;
  /** Sends `claims` as a short-lived signed cookie of its own (a login waiting for a second factor). */
  sendShortLivedCookie(res: ServerResponse, name: string, claims: Claims, options: { durationMs: number; crossSite?: boolean | undefined }): Promise<void>;
  /** The claims of a short-lived cookie, if it holds. */
  readShortLivedCookie(req: IncomingMessage, name: string): Promise<Claims | undefined>;
  /** Clears a cookie. */
  clearCookie(res: ServerResponse, name: string): void;
  /** Makes `auth.tokens.forService()` sign with `signer` (the identity provider's keys). */
  useServiceSigner(signer: ServiceTokenSigner): void;
}

/** The session registry as a plugin uses it (`context.sessions`): the app's {@link Sessions}, and more. */
export interface PluginSessions extends Sessions {
  /** The user's live sessions, each with the hash it is announced by. */
  listWithHashes(userId: string): Promise<Array<{ h: string; session: SessionInfo }>>;
  /** Revokes the user's session shown as `id`; its hash, or `undefined` when the user has none such. */
  revokeById(userId: string, id: string): Promise<string | undefined>;
  /** How the session of token `jti` of `userId` stands. */
  status(jti: string, userId: string): Promise<SessionStatus>;
  /** Records the session of a new token. */
  start(claims: Claims, client: { userAgent: string | undefined; ip: string }): Promise<void>;
  /** Calls `listener` with the hash of every session revoked in this process. */
  onRevoke(listener: (h: string) => void | Promise<void>): void;
}

/** The user directory as a plugin uses it (`context.users`). */
export interface PluginUsers {
  /** The user's record; `undefined` when the directory does not know it. */
  get(id: string): Promise<UserRecord | undefined>;
  /** Whether the user is banned now (a ban with an end that passed is over). */
  isBanned(id: string): Promise<boolean>;
  /** A page of users, by name or id. */
  list(options?: UserListOptions): Promise<UserList>;
  /** Records a user a directory provisioned before any login (creates the record without logins, or updates its name and e-mail); its record. */
  provision(user: { id: string; name: string; email?: string | undefined }): Promise<UserRecord>;
  /** Links another login to the user; its record, or `undefined` when unknown. */
  addLogin(id: string, login: UserLogin): Promise<UserRecord | undefined>;
  /** Changes the user's record (`undefined` from `change`: no change); the new record. */
  update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined>;
}

/** The security events as a plugin fires and reads them (`context.events`). */
export interface PluginEvents {
  /** Records an event where it happens; handlers and webhooks get it after the answer. */
  emit(event: NewAuthEvent, client?: EventClient): void;
  /** Calls `handler` for each event of `type` (`'*'`: all); returns what stops it. A handler that ends access names itself with `retryAs`: its failed runs are run again until they succeed. */
  on(type: AuthEventType | '*', handler: EventHandler, options?: EventHandlerOptions): () => void;
  /** A page of the audit log, newest first. */
  list(query?: EventListOptions): Promise<{ events: AuthEvent[]; next?: string | undefined }>;
}

/** The avatar proxy as a plugin uses it (`context.avatars`). */
export interface PluginAvatars {
  /** Removes the avatar kept for the user (a deleted account's). */
  removeFor(userId: string): Promise<void>;
}

/**
 * Growing delays after wrong secrets, counted per identity and client IP in the core's state store
 * (`context.lockout(rule)`): past the free failures each wrong one doubles the wait before the next
 * attempt (429 with `Retry-After`, before the secret is checked); a right one clears the count.
 */
export interface PluginLockout {
  /** A 429 RateLimitError while attempts on `identity` from `ip` must wait. */
  check(identity: string, ip: string): Promise<void>;
  /** Counts a wrong secret. */
  failed(identity: string, ip: string): Promise<void>;
  /** A right secret: the count starts again. */
  succeeded(identity: string, ip: string): Promise<void>;
}

/** What the core does for a plugin around logins and credentials (`context.kit`). */
export interface PluginKit {
  /** The audience a login asked for, if the service serves it; else the service's own. */
  resolveAudience(requested: string | undefined): string;
  /**
   * `true` the first time `key` is used within `ttlMs` (on every instance); `false` after. With
   * `then`, runs it after the mark; a 503 from it, before anything was sent on `res`, gives the
   * mark back, so the same one-shot token works again once the store is back.
   */
  useOnce(key: string, ttlMs: number, then?: () => Promise<unknown>, res?: { readonly headersSent: boolean }): Promise<boolean>;
  /** Tells the user of a credential change (the credential notices). */
  notifyCredentialChange(user: User, change: CredentialChange, client?: EventClient): void;
  /** Records an event of a login request. */
  event(event: NewAuthEvent, req?: LoginRequest): void;
}
