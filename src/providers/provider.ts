import type { EventClient } from '../core/events/event-bus';
import type { Translations } from '../core/i18n/translations';
import type { CredentialChange } from '../core/credentials/credential-notices';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthRateLimit } from '../core/limits/rate-limiter';
import type { Logger } from '../base/logger';
import type { TokenService } from '../core/token/token-service';
import type { User } from '../core/token/user';
import type { Claims } from '../core/token/claims';
import type { NewAuthEvent } from '../core/audit/auth-event';
import type { CredentialStore } from '../core/credentials/credential-store';

/** A request as providers see it: method, query, parsed body, client IP, and the raw request. */
export interface LoginRequest {
  /** HTTP method, upper case. */
  method: string;
  /** Query parameters. */
  query: URLSearchParams;
  /** Parsed JSON or form body (`undefined` when there was none or its type is not JSON/form). */
  body: unknown;
  /** Client IP as Express sees it (honours the app's `trust proxy`). */
  ip: string;
  /** The path the auth router is mounted at, e.g. `/auth`. */
  baseUrl: string;
  /** The underlying Node request (headers, cookies). */
  raw: IncomingMessage;
}

/** What a provider hands over once it knows who the user is. */
export interface CompletedLogin {
  /** The provider's name (recorded in `auth_provider`). */
  provider: string;
  /** The address (canonical) the provider asked the `sign-in` hooks about itself, before checking a password: the login is not asked about it again. */
  judged?: string | undefined;
  /** The user; `picture` is the source picture URL, replaced by the proxied one. */
  user: User;
  /** Requested audience (`aud` or `site`). @default the only/first allowed audience, else the issuer */
  aud?: string | undefined;
  /** Session-only cookies. @default false */
  sessionOnly?: boolean | undefined;
  /** Skip the picture, use the identicon. @default false */
  noAva?: boolean | undefined;
  /** Where to send the browser afterwards, if allowed. @default undefined (answer the user JSON) */
  from?: string | undefined;
  /**
   * The request proves by itself that this browser started the login (an OAuth2 `state` bound to
   * its handshake cookie, a one-shot token mailed to the user), so it may come from another site:
   * a provider's redirect, a link in a webmail page.
   * @default false: a login completed by a cross-site request is refused with 403 (login CSRF)
   */
  allowCrossSite?: boolean | undefined;
  /**
   * The login was started in this browser and its completion proves it (an OAuth2 `state` bound
   * to the handshake cookie), so it may complete a link started here even when it comes from
   * another site (a mailed token proves only the mailbox, not the browser).
   * @default false
   */
  boundToBrowser?: boolean | undefined;
  /**
   * The id the provider gave, before linked logins resolved the login to its owner (recorded in the
   * user directory's logins). Set by the core; a provider leaves it out.
   * @default user.id
   */
  loginId?: string | undefined;
  /**
   * The login proved two factors itself (a passkey with user verification, or a first factor
   * followed by the second): it never waits for `twoFactor`.
   * @default false
   */
  multiFactor?: boolean | undefined;
}

/** Services a provider gets from the auth service. */
export interface ProviderKit {
  /** The token service (handshake tokens, cookies). */
  /** The words of pages and mails in the language of the request being served. */
  translations: Translations;
  tokens: TokenService;
  /** Saves the avatar, issues the session and answers (303 to an allowed `from`, or 200 user JSON). */
  completeLogin(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<void>;
  /** The audience a login gets (the requested one, or the default); throws a 403 AuthError when not allowed. */
  resolveAudience(requested: string | undefined): string;
  /**
   * Marks `key` as used for `ttlMs` in the shared state store; `true` only for the first caller,
   * across instances. Throws a 503 AuthError when the store fails (a login is then refused).
   * With `then`, runs it after the mark; a 503 from it, before anything was sent on `res`, gives
   * the mark back (a 503 means nothing changed: the same link works again).
   */
  useOnce(key: string, ttlMs: number, then?: () => Promise<unknown>, res?: { readonly headersSent: boolean }): Promise<boolean>;
  /** Counts a hit against a rate limit; throws a 429 AuthError past it. */
  rateLimit(name: AuthRateLimit, identity: string): Promise<void>;
  /** The public base URL of the app. */
  url: URL;
  /** The public URL of the auth router for this request, e.g. `http://127.0.0.1:8080/auth`. */
  authRouteUrl(req: LoginRequest): string;
  /** Where to log. */
  logger: Logger;
  /** The claims of the logged-in user of the request (XSRF checked for cookies); a 401 AuthError otherwise. */
  loggedIn(req: LoginRequest, res: ServerResponse): Promise<Claims>;
  /** {@link ProviderKit.loggedIn} for a credential change: a fresh login in the session cookie (403 `step_up_required` otherwise; see `stepUpMaxAge`). */
  steppedUp(req: LoginRequest, res: ServerResponse): Promise<Claims>;
  /** Where passkeys and second factors live (`credentialStore`). */
  credentials: CredentialStore;
  /** Tells the owner of `user` that a credential changed (`credentialNotices`), without waiting. */
  notifyCredentialChange(user: User, change: CredentialChange, client?: EventClient): void;
  /** Whether the request comes from another site (see `crossOriginProtection`); `false` when that protection is off. */
  isCrossSite(req: LoginRequest): boolean;
  /** Records a security event (`auth.events`), with the request's client when given; never waits. */
  event(event: NewAuthEvent, req?: LoginRequest): void;
  /**
   * Asks the plugins whether `address` may sign in by `method` (`'password'`, `'link'`,
   * `'signup'`); throws their refusal (403 `sso_required` for a domain that signs in through SSO).
   */
  checkSignIn(address: string, method: 'password' | 'link' | 'signup' | 'recovery'): Promise<void>;
  /** Asks the plugins' action guards (a CAPTCHA) whether the request may do `action`; throws the refusal. */
  checkAction(action: 'login' | 'email-link', req: LoginRequest): Promise<void>;
  /** Tells the plugins' action guards that an attempt failed (a wrong password). */
  actionFailed(action: 'login', req: LoginRequest, address?: string): Promise<void>;
  /** Tells the action guards of a login whose password was right. */
  actionSucceeded(action: 'login', req: LoginRequest, address?: string): Promise<void>;
}

/** A route of a provider besides login, callback and logout: `/<name>/<action>` and `/<name>/<action>/<arg>`. */
export interface ProviderAction {
  /** The HTTP methods it takes; any other gets 405 with `Allow`. */
  readonly methods: readonly string[];
  /**
   * It is the target of a form another site posts (a SAML response), so cross-origin protection
   * lets its writes through; it proves the browser itself.
   * @default false
   */
  readonly crossSite?: boolean;
  /** The largest body it reads, in bytes, when it needs more than the auth router's `bodyLimit`. @default the router's */
  readonly bodyLimit?: number;
  /** Handles the request; `arg` is the path segment after the action, when there is one. */
  handle(req: LoginRequest, res: ServerResponse, kit: ProviderKit, arg: string | undefined): Promise<void>;
}

/**
 * A login method mounted at `/<name>/login`, `/<name>/callback` and `/<name>/logout`. Handlers
 * answer through `res`, or throw an `AuthError` for a JSON error answer.
 */
export interface Provider {
  /** The name in the routes, `/list` and `auth_provider`. */
  readonly name: string;
  /** Handles `/<name>/login`. */
  login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void>;
  /** Handles `/<name>/callback`; 404 when absent. */
  callback?(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void>;
  /** Handles `/<name>/logout`; by default both cookies are cleared. */
  logout?(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void>;
  /**
   * The HTTP methods of its routes; any other gets 405 with `Allow`.
   * @default login and callback: GET and POST; logout: any
   */
  readonly methods?: { readonly login?: readonly string[]; readonly callback?: readonly string[] };
  /** More routes, by action name (e.g. a passkey's `register` and `credentials`). */
  readonly actions?: Readonly<Record<string, ProviderAction>>;
  /** The provider's callback comes as a cross-site POST (Apple's form_post): cross-origin protection lets it through. */
  readonly crossSiteCallback?: boolean;
  /**
   * How its logins prove the user, as RFC 8176 `amr` values (the identity provider puts them in
   * id_tokens): `pwd` for a password, `hwk` for a passkey, `otp` for a mailed one-time link.
   * Absent for a login done at another provider.
   */
  readonly authMethods?: readonly string[];
  /** Stops anything the provider runs (servers, polling). */
  close?(): Promise<void>;
}
