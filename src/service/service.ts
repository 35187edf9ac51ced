import { logTo } from '../base/logger';
import { checkHealth, healthRouter, type HealthReport } from './health';
import type { Router } from 'express';
import { AvatarProxy } from '../core/avatar/proxy';
import { createAvatarRouter } from '../core/avatar/route';
import type { Sessions } from '../core/sessions/session-registry';
import { createAuthRouter } from './auth-router';
import { createMiddleware, type Middleware } from '../core/middleware/middleware-set';
import { resolveOptions, type AuthOptions, type ResolvedOptions } from './options';
import { UserDirectory } from '../core/users/user-directory';
import type { EventBus } from '../core/events/event-bus';
import type { CredentialStore } from '../core/credentials/credential-store';
import type { LoginLinks } from '../providers/login-links';
import { SECOND_FACTOR_SERVICE, type SecondFactor } from '../plugin-api/second-factor';
import type { CredentialChecker } from '../providers/direct';
import type { Provider } from '../providers/provider';
import { validateProviderName } from '../providers/provider-name';
import { TokenService } from '../core/token/token-service';
import type { OidcProviderOptions } from '../providers/oidc/oidc-options';
import type { PasskeyOptions } from '../providers/passkey/passkey-options';
import type { AppleProviderOptions } from '../providers/apple/apple-provider';
import type { ApplePrivateKeyLoader } from '../providers/apple/private-key';
import type { TelegramProvider, TelegramProviderOptions } from '../providers/telegram/telegram-provider';
import type { Sender } from '../core/senders/sender';
import { configError } from '../base/errors';
import { createCore, pluginContext } from './assemble';
import type { Translations } from '../core/i18n/translations';
import { checkNotifications, fromCredentialNotices } from '../core/events/notifications';
import { providerRegistrations } from './provider-registrations';
import type { BuiltinProviderOptions } from '../providers/builtin/spec';
import type { DevServer, DevServerOptions } from '../providers/dev/dev-server';
import type { CustomClient, CustomProviderConfig } from '../providers/oauth2/custom-provider';
import type { OAuth2ProviderOptions } from '../providers/oauth2/oauth2-provider';
import type { PassportOAuth2Strategy } from '../providers/oauth2/passport-flow';
import type { PassportProfileMapper } from '../providers/oauth2/passport-profile';

/** The routers returned by {@link Auth.handlers}. */
export interface AuthHandlers {
  /** Mount under any prefix, e.g. `app.use('/auth', authRouter)`. */
  authRouter: Router;
  /** Mount at `avatarRoutePath`, e.g. `app.use('/avatar', avatarRouter)`. */
  avatarRouter: Router;
}

/** The auth service made by {@link createAuth}. */
export interface Auth {
  /**
   * Adds a built-in OAuth2 provider by name (github, google, facebook, microsoft, yandex,
   * battlenet, patreon, discord, twitter), or `dev` (the development server with defaults).
   */
  addProvider(name: string, cid: string, csecret: string, options?: BuiltinProviderOptions): this;
  /** Adds an OAuth2 provider with your own endpoints and user mapping; built-in names are refused. */
  addCustomProvider(name: string, client: CustomClient, config: CustomProviderConfig): this;
  /**
   * Adds an OpenID Connect provider by its issuer (discovery, PKCE, nonce, verified id_tokens;
   * needs the optional package `jose`): Keycloak, Authentik, Auth0, Okta, Entra ID, GitLab, Google...
   */
  addOidcProvider(name: string, options: OidcProviderOptions): this;
  /** Adds any Passport OAuth2 strategy from npm as a provider (state, PKCE and cookies handled here). */
  addPassportProvider(name: string, strategy: PassportOAuth2Strategy, mapProfile?: PassportProfileMapper, options?: OAuth2ProviderOptions): this;
  /** Adds the `dev` provider and returns its fake OAuth2 server: `await dev.start()`. For development only. */
  addDevProvider(options?: DevServerOptions): DevServer;
  /**
   * Adds a passwordless login confirmed through a message: `template` uses `{{.User}}`,
   * `{{.Address}}`, `{{.Token}}`, `{{.Site}}`; `sender` delivers it (e.g. an {@link EmailSender}).
   */
  addVerifyProvider(name: string, template: string, sender: Sender): this;
  /**
   * Adds a login through a Telegram bot and returns the provider (for `webhookHandler()`).
   * Polls for updates unless `polling: false`.
   */
  addTelegramProvider(options: TelegramProviderOptions): TelegramProvider;
  /**
   * Adds Sign in with Apple. The key is loaded at once (`loadApplePrivateKeyFromFile(path)`);
   * a missing or wrong key throws here, not at the first login.
   */
  addAppleProvider(options: AppleProviderOptions, privateKeyLoader: ApplePrivateKeyLoader): this;
  /**
   * Adds login with passkeys (WebAuthn; needs the optional package `@simplewebauthn/server`): the
   * relying party is `url`'s host name, which must be a domain name (browsers refuse an IP address).
   */
  addPasskeyProvider(name: string, options?: PasskeyOptions): this;
  /** Adds a login with a user name and password checked by `checker`. */
  addDirectProvider(name: string, checker: CredentialChecker): this;
  /**
   * Links logins to one user: `auth.useLoginLinks(accounts.loginLinks())`. Logins linked there
   * log in as that user; a logged-in user links another login with `POST /<provider>/link`
   * (with XSRF) and then that provider's login in the same browser.
   */
  useLoginLinks(links: LoginLinks): this;
  /** Adds any {@link Provider} implementation. */
  addCustomHandler(provider: Provider): this;
  /** Whether the plugin of this name is on (e.g. `auth.plugin('two-factor')`). */
  plugin(name: string): boolean;
  /** Names of the registered providers, in registration order. */
  providerNames(): string[];
  /** The auth and avatar routers (made once). */
  handlers(): AuthHandlers;
  /** The middleware set (made once). */
  middleware(): Middleware;
  /** The token service, for apps that make or read tokens themselves. */
  readonly tokens: TokenService;
  /** The avatar proxy. */
  readonly avatars: AvatarProxy;
  /** Where passkeys and second factors live (`credentialStore`, opened). */
  readonly credentials: CredentialStore;
  /** The second-factor check for other services (the account service's `/tokens`); `undefined` without `twoFactor`. */
  readonly twoFactor: SecondFactor | undefined;
  /** The user directory: every user who completed a login (`userStore`). */
  readonly users: UserDirectory;
  /** The security events: `auth.events.on(type | '*', handler)`, and the audit log (`list`). */
  readonly events: EventBus;
  /**
   * The words of answers, mails and pages in each language (the core's, the plugins', the
   * `translations` option's): `auth.translations.text('error.banned', 'de')`, or `localeOf(req)`
   * for the language of a request.
   */
  readonly translations: Translations;
  /** The login sessions: list them, revoke one or all of a user (see `revocationCheck`). */
  readonly sessions: Sessions;
  /** The resolved options. */
  readonly options: Readonly<ResolvedOptions>;
  /**
   * Checks every store (a read within its timeout), the announcements between instances and the
   * signing key: `status: 'ok'`, or `'failing'` with what is wrong in each failed check.
   */
  health(): Promise<HealthReport>;
  /**
   * `GET /livez` and `GET /readyz` (200, or 503 with the report) for probes. Not mounted by
   * `handlers()`: put it on an internal port or path, e.g. `internal.use(auth.healthRouter())`.
   */
  healthRouter(): Router;
  /** Stops providers that run servers or polling and closes the stores. */
  close(): Promise<void>;
}

/**
 * Creates the auth service. Synchronous; throws an `AuthError` with code `config` on misuse
 * (no secret, bad url, bad option values).
 */
export function createAuth(options: AuthOptions): Auth {
  if (options?.notifications !== undefined && options.credentialNotices !== undefined) throw configError('use notifications (credentialNotices is its older, narrower form), not both');
  const core = createCore(resolveOptions(options), checkNotifications(options?.notifications) ?? fromCredentialNotices(options?.credentialNotices));
  const { resolved, providers, tokens, avatars, sessions, everyRequest, plugins, users, authenticator, kit, events } = core;
  plugins.setup(pluginContext(core));
  const bearer = plugins.bearer();
  if (bearer !== undefined) authenticator.useBearer(bearer);
  let handlers: AuthHandlers | undefined;
  let middleware: Middleware | undefined;

  const auth: Auth = {
    tokens,
    avatars,
    credentials: resolved.credentialStore,
    twoFactor: plugins.service(SECOND_FACTOR_SERVICE),
    sessions,
    users,
    events,
    translations: core.translations,
    options: resolved,
    ...providerRegistrations(core, () => auth),
    addCustomHandler(provider) {
      if (!provider || typeof provider.login !== 'function') throw configError('addCustomHandler() needs a provider with a login() method');
      providers.set(validateProviderName(provider.name, providers), provider);
      logTo(resolved.logger).info('provider {provider} registered', { provider: provider.name });
      return auth;
    },
    providerNames: () => [...providers.keys()],
    plugin: (name) => plugins.has(name),
    handlers() {
      handlers ??= {
        authRouter: createAuthRouter({
          providers,
          tokens,
          authenticator,
          kit,
          addPluginRoutes: (router, table) => plugins.addRoutes(router, table, (name, identity) => core.countHit(name, identity)),
          bodyLimit: resolved.bodyLimit,
          logger: resolved.logger,
          crossSite: resolved.crossSite,
          translations: core.translations,
          pluginNames: plugins.names(),
        }),
        avatarRouter: createAvatarRouter(resolved.avatarStore, resolved.logger),
      };
      return handlers;
    },
    middleware() {
      middleware ??= createMiddleware(authenticator, resolved, plugins.guards(), core.translations);
      return middleware;
    },
    health: () => checkHealth({ resolved, tokens, extra: () => plugins.healthChecks() }),
    healthRouter: () => healthRouter(() => auth.health()),
    async close() {
      await Promise.all([...providers.values()].map((p) => p.close?.()));
      await plugins.close();
      await everyRequest?.close();
      await core.heartbeat.close();
      await events.close();
      await Promise.all([resolved.avatarStore.close(), resolved.stateStore.close(), resolved.credentialStore.close(), resolved.userStore.close(), resolved.auditStore?.close()]);
    },
  };
  for (const provider of plugins.providers()) auth.addCustomHandler(provider);
  return auth;
}
