import { count } from '../base/telemetry';
import { AnnouncementHeartbeat } from '../core/state/announcement-heartbeat';
import { canonicalEmail, identityKey } from '../internal/email-address';
import { addressGroup } from '../internal/client-ip';
import type { Request } from 'express';
import { DEFAULT_LOCKOUT, Lockout } from '../core/limits/lockout';
import { toLoginRequest } from './auth-router';
import { AvatarProxy } from '../core/avatar/proxy';
import { createAvatarStore } from '../stores/create-avatar-store';
import { CREDENTIAL_KIND_CODES, CredentialNotices } from '../core/credentials/credential-notices';
import { Notifications, type NotificationOptions } from '../core/events/notifications';
import { CORE_MESSAGES } from '../core/i18n/core-messages';
import { NOTICE_MESSAGES } from '../core/i18n/notice-messages';
import { Translations } from '../core/i18n/translations';
import { createCredentialStore } from '../stores/create-credential-store';
import { deleteCredentials, deletePasskeys, moveCredentials } from '../core/credentials/user-credentials';
import { openGuarded } from '../internal/guarded-store';
import { familyUri } from '../internal/database-uri';
import { RateLimiter } from '../core/limits/rate-limiter';
import { Authenticator } from '../core/middleware/authenticator';
import { MemoryRefreshCache } from '../core/middleware/refresh-cache';
import { StateRefreshCache } from '../core/middleware/state-refresh-cache';
import type { ResolvedOptions, SettledOptions } from './options';
import type { PluginContext } from '../plugin-api/plugin';
import { PluginHost } from './plugin-host';
import { PROBE_KEY, probeStore } from '../internal/store-probe';
import { LoginCompleter } from './complete-login';
import { LinkFlow } from '../providers/link-flow';
import { linkedLogins } from '../plugins/linked-logins/linked-logins-plugin';
import type { Provider, ProviderKit } from '../providers/provider';
import { RevocationCache } from '../core/sessions/revocation-cache';
import { jtiHash, SessionRegistry } from '../core/sessions/session-registry';
import { createStateStore } from '../stores/create-state-store';
import { UI_MESSAGES } from '../core/i18n/ui-messages';
import { oneShotMarks } from '../core/state/one-shot';
import { stateCall } from '../core/state/state-call';
import { TokenService } from '../core/token/token-service';
import { createUserStore } from '../stores/create-user-store';
import { UserDirectory } from '../core/users/user-directory';
import { clientOf, EventBus } from '../core/events/event-bus';
import { WebhookQueue } from '../core/events/webhooks';
import { RateLimitError } from '../base/errors';
import { BoundedMap } from '../internal/bounded-map';
import { createAuditStore } from '../stores/create-audit-store';

/** The parts of one auth service, made from its options: what `createAuth` hands out and plugins get. */
export interface Core {
  resolved: ResolvedOptions;
  providers: Map<string, Provider>;
  tokens: TokenService;
  avatars: AvatarProxy;
  sessions: SessionRegistry;
  everyRequest: RevocationCache | undefined;
  /** Measures the announcements' lag between instances, with telemetry on. */
  heartbeat: AnnouncementHeartbeat;
  links: LinkFlow;
  plugins: PluginHost;
  users: UserDirectory;
  completer: LoginCompleter;
  limiter: RateLimiter<string>;
  authenticator: Authenticator;
  kit: ProviderKit;
  events: EventBus;
  /** The words of answers and mails in each language. */
  translations: Translations;
  /** Counts a hit against a rate limit (a 429 AuthError past it, recorded as an event). */
  countHit(name: string, identity: string): Promise<void>;
}

/** The stores of a service, opened and guarded: `resolveOptions` opens nothing, `createAuth` does it here. */
function openStores(settled: SettledOptions): ResolvedOptions {
  const stateStore = openGuarded(settled.stateStore ?? 'memory://', createStateStore, 'state store', settled.storeTimeout);
  return {
    ...settled,
    stateStore,
    avatarStore: openGuarded(settled.avatarStore ?? 'memory://', createAvatarStore, 'avatar store', settled.storeTimeout),
    credentialStore: openGuarded(settled.credentialStore ?? 'memory://', createCredentialStore, 'credential store', settled.storeTimeout),
    userStore: openGuarded(settled.userStore ?? 'memory://', createUserStore, 'user store', settled.storeTimeout),
    auditStore: settled.auditStore === false ? undefined : openGuarded(settled.auditStore ?? 'memory://', createAuditStore, 'audit store', settled.storeTimeout),
    // A shared state store shares refreshed tokens too, so instances refresh a token once.
    refreshCache: settled.refreshCache ?? (settled.stateStore !== undefined ? new StateRefreshCache(stateStore) : new MemoryRefreshCache()),
  };
}

/** Says at start-up what is wrong with a store (a wrong address, a level folder held by another process), not at the first login. */
function probeStores(settled: SettledOptions, resolved: ResolvedOptions): void {
  // One database under several families is probed (and reported) once.
  const probed = new Set<unknown>();
  for (const [given, probe] of [
    [settled.stateStore, () => resolved.stateStore.get(PROBE_KEY)],
    [settled.userStore, () => resolved.userStore.get(PROBE_KEY)],
    [settled.credentialStore, () => resolved.credentialStore.get(PROBE_KEY)],
  ] as const) {
    if (!probed.has(given)) probeStore(given, probe, resolved.logger);
    probed.add(given);
  }
}

/** The event bus, with the webhook queue it feeds. */
function eventBus(resolved: ResolvedOptions, tokens: TokenService): EventBus {
  const webhooks = new WebhookQueue(resolved.stateStore, resolved.webhooks, { logger: resolved.logger, backoffMs: resolved.webhookBackoff, pollMs: 1000 });
  webhooks.start();
  const events = new EventBus({
    store: resolved.auditStore,
    ipKey: () => tokens.signingSecret(resolved.issuer),
    logger: resolved.logger,
    retentionMs: resolved.auditRetention,
    webhooks,
    types: resolved.eventTypes,
  });
  return events;
}

/** The avatar proxy, as the options say. */
function avatarProxy(resolved: ResolvedOptions): AvatarProxy {
  return new AvatarProxy({
    store: resolved.avatarStore,
    routeUrl: `${resolved.url.href.replace(/\/+$/, '')}${resolved.avatarRoutePath}`,
    resizeLimit: resolved.avatarResizeLimit,
    maxPixels: resolved.avatarMaxPixels,
    idSecret: resolved.avatarIdSecret,
    fetch: {
      timeoutMs: resolved.avatarFetchTimeout,
      maxBytes: resolved.avatarMaxBytes,
      allowPrivateNetworks: resolved.avatarAllowPrivateNetworks,
      allowedPrivateOrigins: resolved.avatarAllowedOrigins,
    },
    logger: resolved.logger,
  });
}

/** The notices of credential changes, told as `credential.added` and `credential.removed` events. */
function credentialNotices(events: EventBus): CredentialNotices {
  return new CredentialNotices((user, change, client) =>
    events.emit(
      {
        type: change.change === 'added' ? 'credential.added' : 'credential.removed',
        userId: user.id,
        actor: { kind: 'user', id: user.id },
        data: { kind: CREDENTIAL_KIND_CODES[change.kind], detail: change.detail },
      },
      client,
    ),
  );
}

/** A hit against a rate limit; past it, the 429 is also an event (the limit's name, never who). */
function hitCounter(limiter: RateLimiter<string>, events: EventBus): (name: string, identity: string) => Promise<void> {
  // Told once per limit and identity while it lasts, so a flood of 429s cannot flood the audit log.
  const limitedLately = new BoundedMap<string, true>(10_000);
  return async (name, identity) => {
    try {
      await limiter.hit(name, identity);
    } catch (err) {
      if (err instanceof RateLimitError) count('authgate.rate_limited', { 'authgate.rule': name });
      const key = `${name}\u0000${identity}`;
      if (err instanceof RateLimitError && limitedLately.get(key) === undefined) {
        limitedLately.set(key, true, err.retryAfter * 1000);
        events.emit({ type: 'rate_limited', actor: { kind: 'system' }, data: { limit: name } });
      }
      throw err;
    }
  };
}

/** The authenticator of the middleware and routes, with the session checks and the plugins' guard of basic auth. */
function makeAuthenticator(parts: {
  tokens: TokenService;
  resolved: ResolvedOptions;
  providers: Map<string, Provider>;
  limiter: RateLimiter<string>;
  sessions: SessionRegistry;
  everyRequest: RevocationCache | undefined;
  users: UserDirectory;
  events: EventBus;
  plugins: PluginHost;
}): Authenticator {
  const { tokens, resolved, providers, limiter, sessions, everyRequest, users, events, plugins } = parts;
  return new Authenticator(tokens, resolved, (name) => providers.has(name), limiter, {
    registry: sessions,
    everyRequest,
    isBanned: (userId) => users.isBanned(userId),
    refreshRefused: (claims, reason) =>
      events.emit({ type: 'session.refresh_refused', userId: claims.user?.id, actor: { kind: 'system' }, session: typeof claims.jti === 'string' ? jtiHash(claims.jti) : undefined, data: { reason } }),
    basicLoginGuard: {
      check: (req) => plugins.checkAction('login', toLoginRequest(req)),
      failed: (req) => plugins.actionFailed('login', toLoginRequest(req)),
      succeeded: (req) => plugins.actionSucceeded('login', toLoginRequest(req)),
    },
  });
}

/** Makes the parts of a service from its checked options (stores opened here), plugins not set up yet. */
export function createCore(settled: SettledOptions, notifications: NotificationOptions | undefined): Core {
  const resolved = openStores(settled);
  probeStores(settled, resolved);
  const providers = new Map<string, Provider>();
  const tokens = new TokenService(resolved);
  const events = eventBus(resolved, tokens);
  const avatars = avatarProxy(resolved);
  const sessions = new SessionRegistry(resolved.stateStore, { ...resolved, secretFor: (aud) => tokens.signingSecret(aud) });
  const everyRequest = resolved.revocationCheck === 'every-request' ? new RevocationCache(sessions, resolved.stateStore) : undefined;
  const heartbeat = new AnnouncementHeartbeat(resolved.stateStore);
  const useOnce = oneShotMarks(resolved.stateStore);
  const notices = credentialNotices(events);
  const links = new LinkFlow(tokens, sessions, useOnce, resolved, notices);
  const plugins = new PluginHost([linkedLogins(links), ...resolved.plugins], resolved.logger);
  const translations = new Translations(resolved.translations, [CORE_MESSAGES, NOTICE_MESSAGES, UI_MESSAGES, ...plugins.messages()]);
  const users = new UserDirectory(resolved.userStore);
  if (notifications !== undefined) new Notifications(notifications, { events, users, state: resolved.stateStore, logger: resolved.logger, translations });
  const completer = new LoginCompleter(tokens, avatars, sessions, plugins.phases, users, resolved, events, async (login, made) => {
    if (!plugins.hasSignInPolicy()) return;
    // The user's address: the login's, the directory's, else a name that is one (a direct provider's
    // user typed as an address, signing in later with a passkey).
    const email = login.user.email ?? (await users.get(login.user.id))?.email ?? canonicalEmail(login.user.name ?? '');
    // A provider that asked about this address itself (a password login) is not asked twice.
    if (email !== undefined && identityKey(email) !== made.judged) await plugins.checkSignIn(email, 'login', made);
  });
  const limiter = new RateLimiter<string>(resolved.stateStore, resolved.rateLimits, resolved.ipv6RateLimitPrefix);
  const countHit = hitCounter(limiter, events);
  const authenticator = makeAuthenticator({ tokens, resolved, providers, limiter, sessions, everyRequest, users, events, plugins });
  const kit: ProviderKit = {
    translations,
    tokens,
    url: resolved.url,
    logger: resolved.logger,
    completeLogin: (req, res, login) => completer.complete(req, res, login),
    resolveAudience: (requested) => completer.resolveAudience(requested),
    rateLimit: (name, identity) => stateCall(() => countHit(name, identity)),
    useOnce,
    authRouteUrl: (req) => `${resolved.url.href.replace(/\/+$/, '')}${req.baseUrl}`,
    loggedIn: (req, res) => authenticator.tokenClaims(req.raw as Request, res),
    steppedUp: (req, res) => authenticator.stepUpClaims(req.raw as Request, res),
    credentials: resolved.credentialStore,
    isCrossSite: (req) => resolved.crossSite.isCrossSite(req.raw),
    notifyCredentialChange: (user, change, client) => notices.notify(user, change, client),
    event: (event, req) => events.emit(event, req && clientOf(req)),
    checkSignIn: (address, method) => plugins.checkSignIn(address, method),
    checkAction: (action, req) => plugins.checkAction(action, req),
    actionFailed: (action, req, address) => plugins.actionFailed(action, req, address),
    actionSucceeded: (action, req, address) => plugins.actionSucceeded(action, req, address),
  };
  return { resolved, providers, tokens, avatars, sessions, everyRequest, heartbeat, links, plugins, users, completer, limiter, authenticator, kit, events, countHit, translations };
}

/** What plugins get from the core (see {@link PluginContext}). */
export function pluginContext(core: Core): PluginContext {
  const { resolved, tokens, sessions, users, avatars, providers, authenticator, kit, completer, plugins, events } = core;
  return {
    url: resolved.url,
    redirects: resolved,
    logger: resolved.logger,
    translations: core.translations,
    tokens,
    sessions,
    users,
    credentials: resolved.credentialStore,
    stateStore: resolved.stateStore,
    events,
    avatars,
    providers,
    authenticator,
    kit,
    lockout: (rule) => new Lockout(resolved.stateStore, { ...DEFAULT_LOCKOUT, ...rule }, resolved.ipv6RateLimitPrefix),
    rateLimit: (name, identity) => core.countHit(name, identity),
    clientGroup: (ip) => addressGroup(ip, resolved.ipv6RateLimitPrefix),
    wasUsed: (key) => stateCall(() => resolved.stateStore.get(`once:${key}`)).then((v) => v !== undefined),
    startSession: (req, res, login) => completer.startSession(req, res, login),
    toLoginRequest,
    async userDeleted(userId) {
      await sessions.revokeAll(userId);
      await plugins.userDeleted(userId);
      await deleteCredentials(resolved.credentialStore, userId);
      await avatars.removeFor(userId);
      await users.delete(userId);
    },
    async userIdChanged(from, to) {
      await moveCredentials(resolved.credentialStore, from, to);
      await users.move(from, to.id);
      await plugins.userIdChanged(from, to.id);
    },
    async credentialsReset(userId) {
      const n = await deletePasskeys(resolved.credentialStore, userId);
      return [...(n === 0 ? [] : [`${n} passkey${n === 1 ? '' : 's'}`]), ...(await plugins.credentialsReset(userId))];
    },
    openStore: (given, create, what) => openGuarded(given, create, what, resolved.storeTimeout),
    storeUri: (family) => familyUri(resolved.database, family) ?? 'memory://',
    service: ((name: string) => plugins.service(name)) as PluginContext['service'],
    beforeAction: (call) => plugins.beforeAction(call),
    afterAction: (call, outcome) => plugins.afterAction(call, outcome),
    checkSignIn: (address, method) => plugins.checkSignIn(address, method),
    checkAction: (action, req) => plugins.checkAction(action, req),
    actionFailed: (action, req) => plugins.actionFailed(action, req),
    actionSucceeded: (action, req) => plugins.actionSucceeded(action, req),
  };
}
