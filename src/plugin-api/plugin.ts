import type { MessagesByLocale, Translations } from '../core/i18n/translations';
import type { Request, RequestHandler, Router } from 'express';
import type { ServerResponse } from 'node:http';
import type { CredentialStore } from '../core/credentials/credential-store';
import type { RedirectPolicy } from '../internal/redirect-policy';
import type { RateLimitRule } from '../core/limits/rate-limiter';
import type { Logger } from '../base/logger';
import type { BearerResolver, GuardFactory } from '../core/middleware/authenticator';
import type { CompletedLogin, LoginRequest, Provider } from '../providers/provider';
import type { StateStore } from '../core/state/state-store';
import type { LockoutRule } from '../core/limits/lockout';
import type { PluginAuthenticator, PluginAvatars, PluginEvents, PluginLockout, PluginKit, PluginSessions, PluginTokens, PluginUsers } from './core-api';
import type { User } from '../core/token/user';

/**
 * The steps of a login a plugin may take, run by the core in this fixed order whatever order the
 * plugins were listed in (order is security): the cross-site check (core), `resolve` (who the
 * login is), `hold` (wait for something more, such as a second factor), then the audience, the
 * session and the user directory (core). Each step belongs to at most one plugin.
 */
export interface LoginPhases {
  /**
   * The login resolved to the user it logs in as (a linked login to its owner). `undefined` when
   * the phase answered the request itself.
   */
  resolve?(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<CompletedLogin | undefined>;
  /** `true` when the phase held the login and answered the request (it completes later, through {@link PluginContext.startSession}). */
  hold?(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<boolean>;
}

/** The names of the login phases, in the order the core runs them. */
export const LOGIN_PHASES = ['resolve', 'hold'] as const;

/** An HTTP method of a {@link PluginRoute}; `ALL` answers every method on its path. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ALL';

/** One route a plugin adds to the auth router, as data. */
export interface PluginRoute {
  method: RouteMethod;
  /** Below the auth router's mount, as Express spells paths: `/api-keys/:id`. */
  path: string;
  /** What answers it (Express handlers; an error passed to `next` is answered as the auth router answers errors). */
  handler: RequestHandler | readonly RequestHandler[];
  /**
   * A rate limit (a name in the plugin's `rateLimits` or the core's) counted per client IP before
   * the handler: 429 with `Retry-After` past it.
   * @default none
   */
  rateLimit?: string;
  /**
   * The largest body it reads, in bytes, when it needs more than the auth router's `bodyLimit`
   * (an identity provider's metadata).
   * @default the auth router's `bodyLimit`
   */
  bodyLimit?: number;
  /**
   * Answers the errors of its requests in a shape of its own (SCIM's): a body the parsers refused
   * (400, 413, 415), another method on its path (405), any error its handlers pass on.
   * @default the auth router's JSON `{ error, code }`
   */
  answerError?(res: ServerResponse, status: number, message: string, err: unknown): void;
}

/** What happened to a user that plugins keeping data about users must follow. */
export interface UserEventHandlers {
  /** The user is gone (an account was deleted): remove what the plugin keeps about it. */
  userDeleted?(userId: string): Promise<void>;
  /** The user's id changed (from an older id scheme): move what the plugin keeps under `from` to `to`. */
  userIdChanged?(from: string, to: string): Promise<void>;
  /** The owner took the account back (a password reset): remove what a stolen session could have added; returns what went ("2 passkeys"). */
  credentialsReset?(userId: string): Promise<string[]>;
}

/**
 * The services plugins offer each other, by name. Empty here: a plugin adds its own from its
 * folder (`declare module` this module, `interface PluginServices { secondFactor: SecondFactor }`),
 * so `ctx.service('secondFactor')` is typed without a cast and no core file names a plugin.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by the plugins
export interface PluginServices {}

/**
 * A way of signing in that takes an address: a password, a link mailed to it, a new account,
 * recovering the password (a reset code mailed to it, and its use), or any other login completing
 * for a user with that address (`login`: a passkey, a social or OpenID Connect login, a linked login).
 */
export type SignInMethod = 'password' | 'link' | 'signup' | 'recovery' | 'login';

/**
 * Refuses a way of signing in for an address (throws an AuthError, e.g. 403 `sso_required` for
 * a domain whose organization signs in through its identity provider); resolves when allowed. The
 * address it is given is canonical (trimmed, NFC, lower-case), whatever the request spelled. For
 * method `login`, `login` is the completed login as its provider made it (before a linked login
 * resolved it to its owner): its provider, and its user's attributes.
 */
export type SignInPolicy = (address: string, method: SignInMethod, login?: CompletedLogin) => Promise<void>;

/**
 * What a person does that a bot would do too, and a plugin may guard (a CAPTCHA): a password login
 * (`login`, every direct provider, the account bridge's included), a sign-up (`signup`), asking for
 * a password reset (`password-reset`), asking for an e-mail sign-in link (`email-link`), accepting an
 * organization's invitation (`invitation-accept`).
 */
export type GuardedAction = 'login' | 'signup' | 'password-reset' | 'email-link' | 'invitation-accept';

/**
 * Guards the {@link GuardedAction}s: `check` runs before anything is checked, stored or mailed and
 * throws an AuthError to refuse; `failed` hears of a failed attempt (a wrong password) and
 * `succeeded` of a successful one, for a guard that only asks after some failures. A guard that
 * counts attempts counts them in `check`, before the password is checked (a burst of concurrent
 * attempts cannot all pass before the first failure is told), and takes a success back in `succeeded`.
 */
export interface ActionGuard {
  check(action: GuardedAction, req: LoginRequest): Promise<void>;
  failed?(action: GuardedAction, req: LoginRequest): Promise<void>;
  succeeded?(action: GuardedAction, req: LoginRequest): Promise<void>;
}

/**
 * What people do that a plugin may hook, by action rather than by feature: signing in (a password,
 * or any login completing for a user with an address), signing up, recovering a password (asking
 * for the reset mail and using it), asking for an e-mail sign-in link, accepting an organization's
 * invitation. SSO's enforcement and CAPTCHA are hooks on these; so is a plugin of the app's own.
 */
export type ActionName = 'sign-in' | 'sign-up' | 'recovery' | 'email-link' | 'invitation-accept';

/**
 * One call of an action's hooks. `before` is called when the request arrives (`req` set: nothing
 * has been checked, stored or mailed yet) and, for the actions that take an address, once more
 * when that address is known (`address` set, canonical: trimmed, NFC, lower-case); a hook reads
 * what it needs and lets the other call pass. A login that completes through a provider (a
 * passkey, a social login) calls `sign-in`'s `before` with its `address` and `login` alone.
 */
export interface ActionCall {
  action: ActionName;
  /** The request (the first call, and `after`). */
  req?: LoginRequest | undefined;
  /** The address the action is for, canonical (the second call). */
  address?: string | undefined;
  /** How a sign-in, sign-up, recovery or link is made (with `address`). */
  method?: SignInMethod | undefined;
  /** A login completed by a provider, before a linked login resolved it to its owner (`method: 'login'`). */
  login?: CompletedLogin | undefined;
}

/** A plugin's hooks on one action: `before` refuses by throwing an AuthError with a code (`captcha_required`, `sso_required`, one of the plugin's); `after` hears how an attempt ended. */
export interface ActionHook {
  before?(call: ActionCall): Promise<void>;
  after?(call: ActionCall, outcome: 'succeeded' | 'failed'): Promise<void>;
}

/** What a plugin adds to the service; every part is optional. */
export interface PluginContribution {
  /**
   * Routes on the auth router (mounted where the app mounts it, e.g. `/auth`), before the provider
   * routes: a list of {@link PluginRoute}, the one way every built-in plugin writes them. A function
   * that adds them to the router it gets is still accepted from plugins written before (it gets no
   * per-route rate limit, body limit, error shape or 405, and goes in the next major version).
   * Either way each route is claimed by the plugin: two plugins (or a plugin and the core)
   * answering one method and path fail at start-up, naming both.
   */
  routes?: readonly PluginRoute[] | ((router: Router) => void);
  /** Login phases; see {@link LoginPhases}. */
  phases?: LoginPhases;
  /** Providers the plugin brings (e.g. the account bridge). */
  providers?: Provider[];
  /** Handlers of user events. */
  userEvents?: UserEventHandlers;
  /**
   * Checks the middleware set offers (`m.org(...roles)` is the `org` factory of the organizations
   * plugin), run after authentication. Keep them fast: they are on the request path.
   */
  guards?: Readonly<Record<string, GuardFactory>>;
  /** A credential in `Authorization: Bearer` that `m.auth` accepts (API keys); one plugin at most. */
  bearer?: BearerResolver;
  /**
   * Checks `auth.health()` runs beside the core's, by name (`identity provider keys`): each
   * resolves when what it checks works and rejects with what is wrong (no secrets in the message).
   */
  health?: Readonly<Record<string, () => Promise<void>>>;
  /** Services it offers other plugins, by name (see {@link PluginContext.service}). */
  services?: Readonly<Record<string, unknown>>;
  /**
   * Asked before a password is checked, a sign-in link is mailed or an account is made for an
   * address (by the core's direct and verify providers, and by plugins that take addresses
   * through {@link PluginContext.checkSignIn}); every plugin's policy must allow it. Kept for
   * plugins written before {@link PluginContribution.actions}: it is run as their `before` with an address.
   */
  signInPolicy?: SignInPolicy;
  /** Guards actions bots aim at (see {@link GuardedAction}); every plugin's guard must allow it. Kept for plugins written before {@link PluginContribution.actions}, which it is run as. */
  actionGuard?: ActionGuard;
  /** Hooks on what people do (see {@link ActionName}); every plugin's `before` must allow it. */
  actions?: Readonly<Partial<Record<ActionName, ActionHook>>>;
  /** Stops what the plugin runs and closes what it opened. */
  close?(): Promise<void>;
}

/** The core's services, as a plugin gets them. */
export interface PluginContext {
  readonly url: URL;
  /** The app's URL and the hosts a login may send the browser to (`allowedRedirectHosts`). */
  readonly redirects: RedirectPolicy;
  readonly logger: Logger;
  /** The languages of answers and mails: `translations.text('mail.x', translations.localeOf(req))` (see `TranslationOptions`). */
  readonly translations: Translations;
  /** Tokens and cookies. */
  readonly tokens: PluginTokens;
  /** The session registry. */
  readonly sessions: PluginSessions;
  /** The user directory. */
  readonly users: PluginUsers;
  readonly credentials: CredentialStore;
  readonly stateStore: StateStore;
  /** The security events: `emit` one where it happens (recorded and handed to handlers after the answer). */
  readonly events: PluginEvents;
  /** The avatar proxy. */
  readonly avatars: PluginAvatars;
  /** The registered providers, by name (filled as the app adds them). */
  readonly providers: ReadonlyMap<string, Provider>;
  /** Reads the request's login: `tokenClaims`, `stepUpClaims`, `reissue`, `renewLogin`. */
  readonly authenticator: PluginAuthenticator;
  /** One-shot keys, audiences, notices of credential changes, login events. */
  readonly kit: PluginKit;
  /** A lockout of growing delays after wrong secrets, on the core's state store (`rule` defaults: 5 free failures, 1 s doubling up to 15 min, counted for a day). */
  lockout(rule?: Partial<LockoutRule>): PluginLockout;
  /** The client of `ip` as the per-IP limits count it: an IPv6 address stands for its network (`ipv6RateLimitPrefix` bits). */
  clientGroup(ip: string): string;
  /** Counts a hit against a rate limit (the core's or one a plugin declared); a 429 AuthError past it. */
  rateLimit(name: string, identity: string): Promise<void>;
  /** `true` once `kit.useOnce(key)` was called for `key`. */
  wasUsed(key: string): Promise<boolean>;
  /** Issues the session of a login (audience, avatar, token, cookies, directory) and answers it. */
  startSession(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<void>;
  /** The provider-facing view of an Express request. */
  toLoginRequest(req: Request): LoginRequest;
  /** Tells every plugin, and the core, that a user is gone: sessions end, avatar and directory record go. */
  userDeleted(userId: string): Promise<void>;
  /** Tells the core and every plugin that a user's id changed: credentials and the directory record move (sessions under the old id live on until they end). */
  userIdChanged(from: string, to: User): Promise<void>;
  /** Tells every plugin that the owner took the account back; returns what was removed. */
  credentialsReset(userId: string): Promise<string[]>;
  /** Runs every plugin's `before` hook of `call.action` (see {@link ActionCall}); throws the first refusal. */
  beforeAction(call: ActionCall): Promise<void>;
  /** Runs every plugin's `after` hook of `call.action`. */
  afterAction(call: ActionCall, outcome: 'succeeded' | 'failed'): Promise<void>;
  /** Asks every plugin's {@link PluginContribution.signInPolicy} whether `address` may sign in by `method`; throws the refusal. */
  checkSignIn(address: string, method: SignInMethod): Promise<void>;
  /** Asks every plugin's {@link ActionGuard} whether the request may do `action`; throws the refusal. */
  checkAction(action: GuardedAction, req: LoginRequest): Promise<void>;
  /** Tells every plugin's {@link ActionGuard} that an attempt at `action` failed. */
  actionFailed(action: GuardedAction, req: LoginRequest): Promise<void>;
  /** Tells every plugin's action guard of a successful attempt. */
  actionSucceeded(action: GuardedAction, req: LoginRequest): Promise<void>;
  /**
   * Opens a store of the plugin's own (given as an object or a URI, made by `create`), guarded as
   * the core's are: a call that fails or hangs past `storeTimeout` rejects as unavailable (503).
   */
  openStore<T extends object>(given: T | string, create: (uri: string) => T, what: string): T;
  /**
   * The URI of a store family of the plugin's (`'organizations'`) on the app's `database`, for a
   * plugin whose own store option is not given; `memory://` without a database.
   */
  storeUri(family: string): string;
  /** A service another plugin offers, by its name in {@link PluginServices} (e.g. `'secondFactor'`); `undefined` when that plugin is off. */
  service<K extends keyof PluginServices>(name: K): PluginServices[K] | undefined;
  /** A service of a plugin that does not declare it in {@link PluginServices} (the caller names its type). */
  service<T>(name: string): T | undefined;
}

/**
 * A feature of the identity core: `createAuth({ plugins: [twoFactor({...})] })`. Its factory
 * checks its options at once (a mistake fails at start-up); `setup` runs once, inside `createAuth`.
 */
export interface AuthPlugin {
  /** Unique among the plugins of a service. */
  readonly name: string;
  /** Rate limits the plugin counts, with defaults (`false`: off unless the app sets it); the app overrides them in `createAuth({ rateLimits })`. */
  readonly rateLimits?: Readonly<Record<string, RateLimitRule | false>>;
  /** The `code`s of the errors it answers with (documented in its guide; typed by extending `AuthErrorReasons`). */
  readonly errorCodes?: readonly string[];
  /**
   * Its words in each language it ships (`error.<code>` for each of its `errorCodes`, `mail.<name>`
   * for its mails, `page.<name>`), merged into `createAuth`'s translations; English is required
   * for every key, and the test suite checks each shipped language has them all.
   * @default none
   */
  readonly messages?: MessagesByLocale;
  /**
   * The types of the events it fires (typed by extending `AuthEventTypes`): webhooks and
   * audit queries accept them.
   * @default none
   */
  readonly eventTypes?: readonly string[];
  /**
   * The plugins it needs, by name: `createAuth` fails at start-up, naming them, when one is not in
   * `plugins` (in any order); it is set up after them.
   * @default none
   */
  readonly requires?: readonly string[];
  /**
   * The plugins it uses when they are on, by name: it is set up after them (as after those it
   * `requires`), so `context.service(...)` in `setup` already finds their services.
   * @default none
   */
  readonly optional?: readonly string[];
  /** Contributes routes, phases, providers and handlers, given the core's services. */
  setup(context: PluginContext): PluginContribution;
}
