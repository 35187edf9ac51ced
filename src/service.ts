import { CredentialNotices } from './credentials/credential-notices';
import type { Request, Router } from 'express';
import { AvatarProxy } from './avatar/proxy';
import { createAvatarRouter } from './avatar/route';
import { RevocationCache } from './sessions/revocation-cache';
import { SessionRegistry, type Sessions } from './sessions/session-registry';
import { createAuthRouter, toLoginRequest } from './auth-router';
import { Authenticator, createMiddleware, type Middleware } from './middleware/authenticator';
import { resolveOptions, type AuthOptions, type ResolvedOptions, type SettledOptions } from './options';
import { createAvatarStore } from './avatar/create-avatar-store';
import { openGuarded } from './internal/guarded-store';
import { MemoryRefreshCache } from './middleware/refresh-cache';
import { StateRefreshCache } from './middleware/state-refresh-cache';
import { createStateStore } from './state/create-state-store';
import { createCredentialStore } from './credentials/create-credential-store';
import { createUserStore } from './users/create-user-store';
import { deleteCredentials, deletePasskeys } from './credentials/user-credentials';
import { UserDirectory } from './users/user-directory';
import type { CredentialStore } from './credentials/credential-store';
import { LoginCompleter } from './providers/complete-login';
import { LinkFlow } from './providers/link-flow';
import type { LoginLinks } from './providers/login-links';
import type { SecondFactor } from './two-factor/two-factor';
import { SECOND_FACTOR_SERVICE } from './two-factor/two-factor-plugin';
import { PluginHost } from './plugins/plugin-host';
import { linkedLogins } from './providers/linked-logins-plugin';
import { DirectProvider, type CredentialChecker } from './providers/direct';
import type { Provider, ProviderKit } from './providers/provider';
import { validateProviderName } from './providers/provider-name';
import { TokenService } from './token/token-service';
import { VerifyProvider } from './providers/verify';
import { makePasskeyProvider } from './providers/passkey/passkeys-plugin';
import { OidcProvider } from './providers/oidc/oidc-provider';
import { resolveOidcOptions, type OidcProviderOptions } from './providers/oidc/oidc-options';
import type { PasskeyOptions } from './providers/passkey/passkey-options';
import { AppleProvider, type AppleProviderOptions } from './providers/apple/apple-provider';
import { loadAppleKey, type ApplePrivateKeyLoader } from './providers/apple/private-key';
import { TelegramProvider, type TelegramProviderOptions } from './providers/telegram/telegram-provider';
import type { Sender } from './senders/sender';
import { configError } from './errors';
import { stateCall } from './state/state-call';
import { RateLimiter } from './limits/rate-limiter';
import { BUILTIN_PROVIDER_NAMES, BUILTIN_PROVIDERS } from './providers/builtin';
import { createBuiltinProvider } from './providers/builtin/create';
import type { BuiltinProviderOptions } from './providers/builtin/spec';
import { createDevProvider } from './providers/dev/dev-provider';
import { DevServer, type DevServerOptions } from './providers/dev/dev-server';
import { createCustomProvider, type CustomClient, type CustomProviderConfig } from './providers/oauth2/custom-provider';
import type { OAuth2ProviderOptions } from './providers/oauth2/oauth2-provider';
import type { PassportOAuth2Strategy } from './providers/oauth2/passport-flow';
import { createPassportProvider, type PassportProfileMapper } from './providers/oauth2/passport-provider';

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
  /** The login sessions: list them, revoke one or all of a user (see `revocationCheck`). */
  readonly sessions: Sessions;
  /** The resolved options. */
  readonly options: Readonly<ResolvedOptions>;
  /** Stops providers that run servers or polling and closes the stores. */
  close(): Promise<void>;
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
    // A shared state store shares refreshed tokens too, so instances refresh a token once.
    refreshCache: settled.refreshCache ?? (settled.stateStore !== undefined ? new StateRefreshCache(stateStore) : new MemoryRefreshCache()),
  };
}

/**
 * Creates the auth service. Synchronous; throws an `AuthError` with code `config` on misuse
 * (no secret, bad url, bad option values).
 */
export function createAuth(options: AuthOptions): Auth {
  const resolved = openStores(resolveOptions(options));
  const providers = new Map<string, Provider>();
  const tokens = new TokenService(resolved);
  const avatars = new AvatarProxy({
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
  const sessions = new SessionRegistry(resolved.stateStore, { ...resolved, secretFor: (aud) => tokens.signingSecret(aud) });
  const everyRequest = resolved.revocationCheck === 'every-request' ? new RevocationCache(sessions, resolved.stateStore) : undefined;
  const useOnce = (key: string, ttlMs: number): Promise<boolean> => stateCall(() => resolved.stateStore.setIfAbsent(`once:${key}`, 1, ttlMs));
  const notices = new CredentialNotices(options.credentialNotices, resolved.logger);
  const links = new LinkFlow(tokens, sessions, useOnce, resolved, notices);
  const plugins = new PluginHost([linkedLogins(links), ...resolved.plugins]);
  const users = new UserDirectory(resolved.userStore);
  const completer = new LoginCompleter(tokens, avatars, sessions, plugins.phases, users, resolved);
  const limiter = new RateLimiter<string>(resolved.stateStore, resolved.rateLimits, resolved.ipv6RateLimitPrefix);
  const authenticator = new Authenticator(tokens, resolved, (name) => providers.has(name), limiter, { registry: sessions, everyRequest });
  const kit: ProviderKit = {
    tokens,
    url: resolved.url,
    logger: resolved.logger,
    completeLogin: (req, res, login) => completer.complete(req, res, login),
    resolveAudience: (requested) => completer.resolveAudience(requested),
    rateLimit: (name, identity) => stateCall(() => limiter.hit(name, identity)),
    useOnce,
    authRouteUrl: (req) => `${resolved.url.href.replace(/\/+$/, '')}${req.baseUrl}`,
    loggedIn: (req, res) => authenticator.tokenClaims(req.raw as Request, res),
    steppedUp: (req, res) => authenticator.stepUpClaims(req.raw as Request, res),
    credentials: resolved.credentialStore,
    isCrossSite: (req) => resolved.crossSite.isCrossSite(req.raw),
    notifyCredentialChange: (user, change) => notices.notify(user, change),
  };
  plugins.setup({
    url: resolved.url,
    redirects: resolved,
    logger: resolved.logger,
    tokens,
    sessions,
    users,
    credentials: resolved.credentialStore,
    stateStore: resolved.stateStore,
    avatars,
    providers,
    authenticator,
    kit,
    rateLimit: (name, identity) => limiter.hit(name, identity),
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
    async credentialsReset(userId) {
      const n = await deletePasskeys(resolved.credentialStore, userId);
      return [...(n === 0 ? [] : [`${n} passkey${n === 1 ? '' : 's'}`]), ...(await plugins.credentialsReset(userId))];
    },
    service: (name) => plugins.service(name),
  });
  let handlers: AuthHandlers | undefined;
  let middleware: Middleware | undefined;

  const auth: Auth = {
    tokens,
    avatars,
    credentials: resolved.credentialStore,
    twoFactor: plugins.service<SecondFactor>(SECOND_FACTOR_SERVICE),
    sessions,
    users,
    options: resolved,
    addProvider(name, cid, csecret, providerOptions) {
      if (name === 'dev') {
        auth.addDevProvider();
        return auth;
      }
      const spec = BUILTIN_PROVIDERS.get(name);
      if (!spec) {
        throw configError(`"${name}" is not a built-in provider (${BUILTIN_PROVIDER_NAMES.join(', ')}); use addCustomProvider() for others`);
      }
      if (!cid || !csecret) throw configError(`addProvider("${name}") needs the client id and secret of your ${name} OAuth app`);
      return auth.addCustomHandler(createBuiltinProvider(spec, cid, csecret, providerOptions));
    },
    addCustomProvider(name, client, config) {
      if (BUILTIN_PROVIDER_NAMES.includes(name)) {
        throw configError(`"${name}" is a built-in provider name: use addProvider("${name}", ...) or pick another name`);
      }
      return auth.addCustomHandler(createCustomProvider(name, client, config));
    },
    addOidcProvider(name, oidcOptions) {
      return auth.addCustomHandler(new OidcProvider(name, resolveOidcOptions(name, oidcOptions)));
    },
    addPassportProvider(name, strategy, mapProfile, providerOptions) {
      return auth.addCustomHandler(createPassportProvider(name, strategy, mapProfile, providerOptions));
    },
    addDevProvider(devOptions = {}) {
      const server = new DevServer({ host: '127.0.0.1', port: 8084, logger: resolved.logger, ...devOptions });
      auth.addCustomHandler(createDevProvider('dev', server));
      return server;
    },
    addVerifyProvider(name, template, sender) {
      return auth.addCustomHandler(new VerifyProvider(name, template, sender));
    },
    addTelegramProvider(telegramOptions) {
      const provider = new TelegramProvider(telegramOptions, resolved.stateStore, avatars, resolved.logger);
      try {
        auth.addCustomHandler(provider);
      } catch (err) {
        void provider.close();
        throw err;
      }
      return provider;
    },
    addAppleProvider(appleOptions, privateKeyLoader) {
      return auth.addCustomHandler(new AppleProvider(appleOptions, loadAppleKey(privateKeyLoader)));
    },
    addPasskeyProvider(name, passkeyOptions) {
      return auth.addCustomHandler(makePasskeyProvider(name, passkeyOptions, resolved.url, resolved.logger));
    },
    addDirectProvider(name, checker) {
      return auth.addCustomHandler(new DirectProvider(name, checker));
    },
    useLoginLinks(loginLinks) {
      if (!loginLinks || typeof loginLinks.resolve !== 'function' || typeof loginLinks.link !== 'function' || typeof loginLinks.check !== 'function') {
        throw configError('useLoginLinks() needs links with resolve(), check() and link(), e.g. accounts.loginLinks()');
      }
      links.use(loginLinks);
      return auth;
    },
    addCustomHandler(provider) {
      if (!provider || typeof provider.login !== 'function') throw configError('addCustomHandler() needs a provider with a login() method');
      providers.set(validateProviderName(provider.name, providers), provider);
      resolved.logger.logf('[INFO] provider %s registered', provider.name);
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
          addPluginRoutes: (router) => plugins.addRoutes(router),
          bodyLimit: resolved.bodyLimit,
          logger: resolved.logger,
          crossSite: resolved.crossSite,
        }),
        avatarRouter: createAvatarRouter(resolved.avatarStore, resolved.logger),
      };
      return handlers;
    },
    middleware() {
      middleware ??= createMiddleware(authenticator, resolved);
      return middleware;
    },
    async close() {
      await Promise.all([...providers.values()].map((p) => p.close?.()));
      await plugins.close();
      await everyRequest?.close();
      await Promise.all([resolved.avatarStore.close(), resolved.stateStore.close(), resolved.credentialStore.close(), resolved.userStore.close()]);
    },
  };
  for (const provider of plugins.providers()) auth.addCustomHandler(provider);
  return auth;
}
