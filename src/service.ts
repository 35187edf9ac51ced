import type { Router } from 'express';
import { AvatarProxy } from './avatar/proxy';
import { createAvatarRouter } from './avatar/route';
import { createAuthRouter } from './auth-router';
import { Authenticator, createMiddleware, type Middleware } from './middleware/authenticator';
import { resolveOptions, type AuthOptions, type ResolvedOptions } from './options';
import { LoginCompleter } from './providers/complete-login';
import { DirectProvider, type CredentialChecker } from './providers/direct';
import type { Provider, ProviderKit } from './providers/provider';
import { validateProviderName } from './providers/provider-name';
import { TokenService } from './token/token-service';

/** The routers returned by {@link Auth.handlers}. */
export interface AuthHandlers {
  /** Mount under any prefix, e.g. `app.use('/auth', authRouter)`. */
  authRouter: Router;
  /** Mount at `avatarRoutePath`, e.g. `app.use('/avatar', avatarRouter)`. */
  avatarRouter: Router;
}

/** The auth service made by {@link createAuth}. */
export interface Auth {
  /** Adds a login with a user name and password checked by `checker`. */
  addDirectProvider(name: string, checker: CredentialChecker): this;
  /** Adds any {@link Provider} implementation. */
  addCustomHandler(provider: Provider): this;
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
  /** The resolved options. */
  readonly options: Readonly<ResolvedOptions>;
  /** Stops providers that run servers or polling and closes the avatar store. */
  close(): Promise<void>;
}

/**
 * Creates the auth service. Synchronous; throws an `AuthError` with code `config` on misuse
 * (no secret, bad url, bad option values).
 */
export function createAuth(options: AuthOptions): Auth {
  const resolved = resolveOptions(options);
  const providers = new Map<string, Provider>();
  const tokens = new TokenService(resolved);
  const avatars = new AvatarProxy({
    store: resolved.avatarStore,
    routeUrl: `${resolved.url.href.replace(/\/+$/, '')}${resolved.avatarRoutePath}`,
    resizeLimit: resolved.avatarResizeLimit,
    maxPixels: resolved.avatarMaxPixels,
    fetch: {
      timeoutMs: resolved.avatarFetchTimeout,
      maxBytes: resolved.avatarMaxBytes,
      allowPrivateNetworks: resolved.avatarAllowPrivateNetworks,
    },
    logger: resolved.logger,
  });
  const completer = new LoginCompleter(tokens, avatars, resolved);
  const authenticator = new Authenticator(tokens, resolved, (name) => providers.has(name));
  const kit: ProviderKit = {
    tokens,
    url: resolved.url,
    logger: resolved.logger,
    completeLogin: (req, res, login) => completer.complete(req, res, login),
    resolveAudience: (requested) => completer.resolveAudience(requested),
    authRouteUrl: (req) => `${resolved.url.href.replace(/\/+$/, '')}${req.baseUrl}`,
  };
  let handlers: AuthHandlers | undefined;
  let middleware: Middleware | undefined;

  const auth: Auth = {
    tokens,
    avatars,
    options: resolved,
    addDirectProvider(name, checker) {
      return auth.addCustomHandler(new DirectProvider(name, checker));
    },
    addCustomHandler(provider) {
      if (!provider || typeof provider.login !== 'function') throw new TypeError('authgate: addCustomHandler() needs a provider with a login() method');
      providers.set(validateProviderName(provider.name, providers), provider);
      resolved.logger.logf('[INFO] provider %s registered', provider.name);
      return auth;
    },
    providerNames: () => [...providers.keys()],
    handlers() {
      handlers ??= {
        authRouter: createAuthRouter({ providers, tokens, authenticator, kit, bodyLimit: resolved.bodyLimit, logger: resolved.logger }),
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
      await resolved.avatarStore.close();
    },
  };
  return auth;
}
