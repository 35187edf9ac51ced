import type { AvatarStore } from '../core/avatar/avatar-store';
import { checkDatabase, ephemeralFamilies, familyUri } from '../internal/database-uri';
import { resolveAvatarOptions, type AvatarOptions, type ResolvedAvatarOptions } from '../core/avatar/avatar-options';
import { configError } from '../base/errors';
import { CrossSitePolicy, type CrossSiteOptions } from '../internal/cross-origin';
import { positiveMs } from '../internal/option-checks';
import { AUTH_RATE_LIMITS, resolveRules, type AuthRateLimit, type RateLimitRule, resolveIpv6Prefix } from '../core/limits/rate-limiter';
import { warningsLogger, type Logger, logTo } from '../base/logger';
import { resolveMiddlewareOptions, type MiddlewareOptions, type ResolvedMiddlewareOptions } from '../core/middleware/middleware-options';
import type { RefreshCache } from '../core/middleware/refresh-cache';
import type { StateStore } from '../core/state/state-store';
import type { CredentialStore } from '../core/credentials/credential-store';
import type { AuditStore } from '../core/audit/audit-store';
import type { NotificationOptions } from '../core/events/notifications';
import type { TranslationOptions } from '../core/i18n/translations';
import { checkWebhooks, WEBHOOK_BACKOFF_MS, type WebhookOptions } from '../core/events/webhooks';
import type { UserStore } from '../core/users/user-store';
import type { TwoFactorOptions } from '../plugins/two-factor/two-factor-options';
import { twoFactor } from '../plugins/two-factor/two-factor-plugin';
import type { AuthPlugin } from '../plugin-api/plugin';
import { checkPlugins, knownEventTypes, pluginRateLimits } from './plugin-host';
import { sessionRoutes } from '../plugins/sessions/sessions-plugin';
import { eventRoutes } from '../plugins/events/event-routes';
import type { CredentialNoticeOptions } from '../core/credentials/credential-notices';
import { resolveSessionOptions, type ResolvedSessionOptions, type SessionOptions } from '../core/sessions/session-options';
import { resolveTokenOptions, type ResolvedTokenOptions, type TokenOptions } from '../core/token/token-options';

export type { SameSite } from '../core/token/token-options';

/**
 * Options of {@link createAuth}: the service's own, and those of the parts it is made of (tokens,
 * middleware, avatars, cross-site protection), each documented where it is used. Durations are
 * milliseconds.
 */
export interface AuthOptions extends TokenOptions, MiddlewareOptions, AvatarOptions, CrossSiteOptions, SessionOptions {
  /**
   * Public base URL of the app (scheme, host, port), used for OAuth2 callbacks, avatar links and
   * the redirect allowlist. Required.
   */
  url: string;
  /** Extra hosts (`host` or `host:port`) that `from` may redirect to. @default [] */
  allowedRedirectHosts?: string[] | undefined;
  /**
   * User ids (as `GET /auth/user` shows them, e.g. `github_2b3c...`) whose logins are admins: their
   * tokens get `attrs.admin`, which `m.admin` and the admin plugin honour. The claims updater sees
   * the flag and may change it. Ids, not e-mail addresses: some providers let anyone claim an
   * address; `npx authgate admin <e-mail or id>` grants by e-mail and shows whom it matched.
   * @default []
   */
  admins?: string[] | undefined;
  /**
   * One database for every store of the service and of its plugins (sessions and other state,
   * avatars, passkeys and second factors, the user directory, the audit log, organizations,
   * accounts): `postgres://user:pass@host/db` (each family in tables of its own, on one pool),
   * `mongodb://host/db` (collections of its own), `level:///var/lib/app/auth` (a folder of its own
   * per family), or `memory://`. A per-family option (`stateStore`, `userStore`, a plugin's `store`)
   * overrides it for its family: `stateStore: 'redis://...'` beside a PostgreSQL `database` is the
   * usual pair for several instances.
   * @default undefined (every store in memory: lost on restart, not shared between instances)
   */
  database?: string | undefined;
  /**
   * Shared state (sessions, one-shot login tokens, pending logins, refresh cache, rate limits): a store or a
   * URI for {@link createStateStore} (`memory://`, `level:///path`, `redis://...`,
   * `postgres://...`, `mongodb://...`). Use Redis or PostgreSQL when several instances serve logins.
   * @default 'memory://'
   */
  stateStore?: StateStore | string | undefined;
  /**
   * Where passkeys and second factors live, durably: a store or a URI for
   * {@link createCredentialStore} (`level:///path`, `postgres://...`, `mongodb://...`, `memory://`).
   * Needed by `addPasskeyProvider` and `twoFactor`; share one between instances.
   * @default 'memory://' (lost on restart: use a real store with passkeys or two-factor)
   */
  credentialStore?: CredentialStore | string | undefined;
  /**
   * The user directory (`auth.users`): one record per user, written at every completed login. A
   * store or a URI for {@link createUserStore} (`level:///path`, `postgres://...`, `mongodb://...`,
   * `memory://`). A deployment that adds it starts empty and fills as people log in.
   * @default 'memory://' (lost on restart: use a real store to keep the list)
   */
  userStore?: UserStore | string | undefined;
  /**
   * The audit log of security events (`auth.events`, `GET /events`, `GET /admin/audit`): a store
   * or a URI for {@link createAuditStore} (`level:///path`, `postgres://...`, `mongodb://...`,
   * `memory://`), or `false` for none (handlers of `auth.events.on` still run).
   * @default 'memory://' (the newest 100,000 events, lost on restart)
   */
  auditStore?: AuditStore | string | false | undefined;
  /** How long the audit log keeps an event, in ms. @default 7776000000 (90 days) */
  auditRetention?: number | undefined;
  /**
   * Receivers of the security events in the Standard Webhooks format (`webhook-id`,
   * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA-256 of id.timestamp.body>`),
   * delivered at least once from a queue in the state store (share one between instances).
   * @default [] (none)
   */
  webhooks?: WebhookOptions[] | undefined;
  /** The waits between attempts of a webhook delivery, in ms; one attempt more than waits. @default WEBHOOK_BACKOFF_MS (8 attempts over about a day) */
  webhookBackoff?: number[] | undefined;
  /**
   * Mail the owner whenever a passkey, a linked login or two-factor is added or removed: the older,
   * narrower form of `notifications` (credential changes only). @default undefined (no mail)
   */
  credentialNotices?: CredentialNoticeOptions | undefined;
  /**
   * Mail the owner of an account when something happens to it: a sign-in from a new browser, a
   * password or e-mail change, a credential added or removed, a ban. Each kind can be turned off.
   * @default undefined (no mail)
   */
  notifications?: NotificationOptions | undefined;
  /**
   * The language of error messages, mails and pages: each request's (`Accept-Language`, or your
   * `locale(req)`), with English, German, French and Spanish shipped; add or change words with
   * `messages`. Templates you give (`resetTemplate`...) are used as given. @default on, English by default
   */
  translations?: TranslationOptions | undefined;
  /** Two-factor authentication (TOTP): routes under `/2fa`, and logins that wait for the second factor; the same as `plugins: [twoFactor(options)]`. @default undefined (off) */
  twoFactor?: TwoFactorOptions | undefined;
  /**
   * Features of the identity core, each made by its factory, e.g. `[twoFactor({ key }), organizations()]`.
   * The order does not matter: the core runs login phases in its own fixed order.
   * @default []
   */
  plugins?: AuthPlugin[] | undefined;
  /** Size limit of request bodies read by the auth routes, in bytes. @default 16384 */
  bodyLimit?: number | undefined;
  /**
   * Rate limits of the endpoints that guess or send (429 with Retry-After past them), counted in
   * `stateStore`. `false` turns all off; give `{ loginPerUser: { limit: 5, windowMs: 60000 } }` to
   * change one, or `{ loginPerIp: false }` to drop one.
   * Plugins add theirs (the session routes' `sessionsPerUser`, two-factor's `twoFactorPerUser`...), set here too.
   * @default loginPerIp 60/min, loginPerUser 10/min (failed logins only: a right password always passes), basicPerIp 60/min and basicPerUser 10/min (failed basic auth only), verifyPerIp 20/10 min, verifyPerAddress 5/hour (links mailed to one address; earlier links stay valid), telegramPerIp 30/min, sessionsPerUser 60/min (the session routes), twoFactorPerUser 10/10 min and twoFactorPerIp 60/10 min (codes tried)
   */
  rateLimits?: false | Partial<Record<AuthRateLimit | (string & {}), RateLimitRule | false>> | undefined;
  /**
   * Per-IP limits count an IPv6 client by its network of this many leading bits (one host commonly
   * holds a whole /64); IPv4-mapped addresses (`::ffff:a.b.c.d`) count as the IPv4 address.
   * @default 64
   */
  ipv6RateLimitPrefix?: number | undefined;
  /** How long a call to the avatar or state store may take before the request gets a 503. @default 5000 */
  storeTimeout?: number | undefined;
  /**
   * Where authgate logs. The default writes warnings and errors (a store that failed, a request
   * whose host is not `url`'s, a risky setting) to stderr; `consoleLogger` adds the rest, and
   * `noopLogger` silences it.
   * @default warningsLogger
   */
  logger?: Logger | undefined;
}

/**
 * {@link AuthOptions} checked, with defaults filled in and hooks turned into functions. Nothing is
 * opened: stores stay as given (objects or URIs) until `createAuth` opens them.
 */
export interface SettledOptions extends ResolvedTokenOptions, ResolvedMiddlewareOptions, ResolvedAvatarOptions, ResolvedSessionOptions {
  url: URL;
  /** As given (checked), or absent: plugins place their stores on it. */
  database: string | undefined;
  allowedRedirectHosts: string[];
  admins: ReadonlySet<string>;
  crossSite: CrossSitePolicy;
  bodyLimit: number;
  rateLimits: Partial<Record<string, RateLimitRule | false>>;
  ipv6RateLimitPrefix: number;
  storeTimeout: number;
  logger: Logger;
  /** As given: a store, a URI, or absent. */
  stateStore: StateStore | string | undefined;
  /** As given: a store, a URI, or absent. */
  avatarStore: AvatarStore | string | undefined;
  /** As given: a store, a URI, or absent. */
  credentialStore: CredentialStore | string | undefined;
  /** As given: a store, a URI, or absent. */
  userStore: UserStore | string | undefined;
  /** As given: a store, a URI, `false`, or absent. */
  auditStore: AuditStore | string | false | undefined;
  auditRetention: number;
  webhooks: ReturnType<typeof checkWebhooks>;
  /** The event types of the core and the plugins. */
  eventTypes: ReadonlySet<string>;
  webhookBackoff: readonly number[];
  /** As given. */
  translations: TranslationOptions;
  /** The plugins given, and those options turn on (`twoFactor`), checked. */
  plugins: AuthPlugin[];
  /** As given, or absent. */
  refreshCache: RefreshCache | undefined;
}

/** The options a running auth service uses: {@link SettledOptions} with its stores opened (and guarded). */
export interface ResolvedOptions extends Omit<SettledOptions, 'stateStore' | 'avatarStore' | 'credentialStore' | 'userStore' | 'auditStore' | 'refreshCache'> {
  stateStore: StateStore;
  avatarStore: AvatarStore;
  credentialStore: CredentialStore;
  userStore: UserStore;
  /** `undefined` with `auditStore: false`. */
  auditStore: AuditStore | undefined;
  refreshCache: RefreshCache;
}

/**
 * In production, says at start-up which stores would live in memory (lost on a restart, not shared
 * by instances) and how to fix it: a deployment that drifts apart silently is the worse failure.
 */
function warnIfEphemeral(stores: Parameters<typeof ephemeralFamilies>[0], logger: Logger): void {
  if (process.env.NODE_ENV !== 'production') return;
  const lost = ephemeralFamilies(stores).filter((family) => family !== 'avatars' && family !== 'audit');
  if (lost.length === 0) return;
  logTo(logger).warn(
    'NODE_ENV is production but the {stores} store{verb} in memory: sessions and users are lost on a restart and not shared by instances; set createAuth({ database: process.env.DATABASE_URL }) (or the per-store option)',
    { stores: lost.join(', '), verb: lost.length === 1 ? ' is' : 's are' },
  );
}

/**
 * Checks {@link AuthOptions} and fills in the defaults, opening nothing. Throws an `AuthError`
 * with code `config` and a message that says what to change.
 */
export function resolveOptions(options: AuthOptions): SettledOptions {
  if (options === null || typeof options !== 'object') throw configError('createAuth() needs an options object');
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw configError('options.url must be the public base URL of the app, e.g. "http://127.0.0.1:8080"');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError('options.url must be an http or https URL');
  const logger = options.logger ?? warningsLogger;
  if (options.plugins !== undefined && !Array.isArray(options.plugins)) throw configError('options.plugins must be a list of plugins, e.g. [twoFactor({ key })]');
  const database = checkDatabase(options.database);
  const plugins = checkPlugins([sessionRoutes(), eventRoutes(), ...(options.twoFactor === undefined ? [] : [twoFactor(options.twoFactor)]), ...(options.plugins ?? [])]);
  const stores = {
    state: options.stateStore ?? familyUri(database, 'state'),
    avatars: options.avatarStore ?? familyUri(database, 'avatars'),
    credentials: options.credentialStore ?? familyUri(database, 'credentials'),
    users: options.userStore ?? familyUri(database, 'users'),
    audit: options.auditStore ?? familyUri(database, 'audit'),
  };
  const eventTypes = knownEventTypes(plugins);
  warnIfEphemeral(stores, logger);
  return {
    ...resolveTokenOptions(options, url),
    ...resolveMiddlewareOptions(options),
    ...resolveAvatarOptions(options),
    ...resolveSessionOptions(options),
    url,
    database,
    allowedRedirectHosts: (options.allowedRedirectHosts ?? []).map((h) => h.toLowerCase()),
    admins: checkAdmins(options.admins),
    crossSite: new CrossSitePolicy(url, options),
    bodyLimit: positiveMs('bodyLimit', options.bodyLimit, 16 * 1024),
    rateLimits: resolveRules({ ...AUTH_RATE_LIMITS, ...pluginRateLimits(plugins) }, options.rateLimits),
    ipv6RateLimitPrefix: resolveIpv6Prefix(options.ipv6RateLimitPrefix),
    storeTimeout: positiveMs('storeTimeout', options.storeTimeout, 5000),
    logger,
    stateStore: stores.state,
    avatarStore: stores.avatars,
    credentialStore: stores.credentials,
    userStore: stores.users,
    auditStore: stores.audit,
    auditRetention: positiveMs('auditRetention', options.auditRetention, 90 * 86_400_000),
    webhooks: checkWebhooks(options.webhooks, eventTypes),
    eventTypes,
    webhookBackoff: checkBackoff(options.webhookBackoff),
    translations: options.translations ?? {},
    plugins,
    refreshCache: options.refreshCache,
  };
}

function checkAdmins(admins: string[] | undefined): ReadonlySet<string> {
  if (admins === undefined) return new Set();
  if (!Array.isArray(admins) || admins.some((id) => typeof id !== 'string' || id.trim() === ''))
    throw configError('options.admins must be a list of user ids, e.g. ["github_2b3c..."] (GET /auth/user shows the id of the logged-in user)');
  const emails = admins.filter((id) => id.includes('@'));
  if (emails.length > 0) {
    throw configError(
      `options.admins takes user ids, not e-mail addresses (${emails[0]}): some providers let anyone claim an address. Grant by e-mail with npx authgate admin ${emails[0]} (it shows whom it matched), or give the id GET /auth/user shows`,
    );
  }
  return new Set(admins.map((id) => id.trim()));
}

function checkBackoff(backoff: number[] | undefined): readonly number[] {
  if (backoff === undefined) return WEBHOOK_BACKOFF_MS;
  if (!Array.isArray(backoff) || backoff.length > 20 || backoff.some((ms) => !Number.isFinite(ms) || ms < 0)) throw configError('options.webhookBackoff must be a list of at most 20 waits in ms');
  return [...backoff];
}
