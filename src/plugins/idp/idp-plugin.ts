import { IDP_MESSAGES } from './idp-messages';
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ADMIN_SERVICE, type AuthPlugin, type PluginContext, SECOND_FACTOR_SERVICE } from '../../plugin-kit/plugin-api';
import { AuthError, configError, RateLimitError, loadOptional, requirePackages, isBanned, logTo } from '../../plugin-kit/helpers';
import { clientIp, sendJson, safeFetch, tracedRequest } from '../../plugin-kit/http';
import { jtiHash, type Claims, isAdmin as hasAdminAttr, type User } from '../../plugin-kit/sessions';
import { Router, type Request, type Response } from 'express';
import { appRouteList } from './app-routes';
import { linkGrantToSession, revokeGrants, revokeSessionGrants } from './grants';
import { clientMetadata, scopesFor } from './client-metadata';
import { checkIdpOptions, type IdentityProviderOptions, type IdpClient, type ResolvedIdpOptions } from './idp-options';
import { ClientRegistry } from './client-registry';
import { clientRouteList } from './client-routes';
import { IdpLogout } from './idp-logout';
import { addInteractionRoutes, grantLasts } from './interactions';
import { originsOf, pageSources } from './pages';
import type { OidcProviderLike, OidcProviderModule } from './oidc-types';
import { serviceTokenSigner } from './service-tokens';
import { KEY_RELOAD_MS, loadSigningKeys, type SigningJwk } from './signing-keys';
import { StateAdapter } from './state-adapter';
import { defaultScope, forwardTo } from './request-defaults';
import { REGISTERED_PREFIX, type ResolvedRegistration } from './registration-policy';

/** The identity provider plugin: its router serves the issuer. */
export interface IdentityProviderPlugin extends AuthPlugin {
  /** Serves discovery, the OpenID Connect endpoints and the login and consent steps at the issuer's path: `app.use(idp.router)`. */
  readonly router: Router;
  /** Resolves once the provider runs (its signing keys loaded or made); rejects when it cannot start. */
  ready(): Promise<void>;
  /** Reloads the signing keys now (every instance does hourly, and rotates them when due). */
  reloadKeys(): Promise<void>;
}

/** The scopes and the claims each gives; `acr` and `amr` ride with `openid`, so every id_token says how the login was made. */
const CLAIMS = { acr: null, amr: null, auth_time: null, sid: null, iss: null, openid: ['sub', 'acr', 'amr'], profile: ['name', 'picture', 'preferred_username'], email: ['email'] };

/**
 * oidc-provider's prompts, with one more reason to ask for a login: the provider's session must be
 * the browser's live authgate session. Else a browser whose authgate session ended (or is now
 * another user's) would get codes for the provider session's user, for up to its 14 days.
 */
function sessionBoundPolicy(lib: OidcProviderModule, ctx: PluginContext): unknown {
  const { base, Check } = lib.interactionPolicy;
  const policy = base();
  type CheckContext = { oidc: { session: { accountId?: string }; result?: { login?: unknown }; params: Record<string, unknown>; deviceCode?: unknown }; req: Request; res: Response };
  policy.get('login').checks.add(
    new Check('authgate_session', 'the browser is not signed in to authgate as this user', 'login_required', async (octx: unknown) => {
      const { oidc, req, res } = octx as CheckContext;
      const accountId = oidc.session.accountId;
      // No session: oidc-provider's own check asks; a login just made here is the authgate session's.
      if (accountId === undefined || oidc.result?.login !== undefined) return false;
      const claims = await ctx.authenticator.navigationClaims(req, res).catch(() => undefined);
      return claims?.act !== undefined || (claims?.user as User | undefined)?.id !== accountId;
    }),
  );
  // A grant that outlives the session (a refresh token, a device's tokens) is a credential: it needs a recent login, as step-up does.
  policy.get('login').checks.add(
    new Check('authgate_step_up', 'a grant that lasts needs a recent login', 'login_required', async (octx: unknown) => {
      const { oidc, req, res } = octx as CheckContext;
      if (oidc.session.accountId === undefined || oidc.result?.login !== undefined || !grantLasts(oidc.params.scope, oidc.deviceCode)) return false;
      const claims = await ctx.authenticator.navigationClaims(req, res).catch(() => undefined);
      return claims === undefined || !ctx.authenticator.isRecentLogin(claims);
    }),
  );
  return policy;
}

/** oidc-provider's `fetch`, on authgate's guarded client: a POST whose 2xx answer is a Response, anything else an error. */
async function guardedPost(url: string, init: { method?: string; body?: unknown }, allowedPrivateOrigins: string[]): Promise<globalThis.Response> {
  if (init.method !== 'POST') throw new Error('the identity provider fetches nothing but back-channel logouts');
  const body = Buffer.from(String(init.body ?? ''));
  await safeFetch(url, {
    timeoutMs: 5000,
    maxBytes: 64 * 1024,
    allowPrivateNetworks: false,
    allowedPrivateOrigins,
    maxRedirects: 0,
    accept: '*/*',
    post: { body, contentType: 'application/x-www-form-urlencoded' },
  });
  return new globalThis.Response(null, { status: 200 });
}

/**
 * RFC 8707 on the provider: a `resource` names one of the options' `resources`, which the client
 * must be allowed; its access token is a JWT whose `aud` is the resource, with the scopes asked and
 * granted among the resource's. No `resource`: the opaque token of userinfo, as before.
 */
function resourceIndicators(lib: OidcProviderModule, options: ResolvedIdpOptions): Record<string, unknown> {
  const allowed = new Map(options.clients.map((c) => [c.clientId, new Set(c.resources ?? [])]));
  return {
    enabled: true,
    defaultResource: (_octx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
    useGrantedResource: () => true,
    getResourceServerInfo: (_octx: unknown, indicator: string, client: { clientId: string }) => {
      const resource = options.resources.get(indicator);
      const may = client.clientId.startsWith(REGISTERED_PREFIX) ? options.registration?.resources : allowed.get(client.clientId);
      if (resource === undefined || !may?.has(indicator))
        throw new lib.errors.InvalidTarget(
          `resource ${indicator.slice(0, 120)} is ${resource === undefined ? 'not one of the provider’s resources' : 'not one this client may ask for'} (identityProvider resources${client.clientId.startsWith(REGISTERED_PREFIX) ? ', registration.resources' : ', the client’s resources'}: the same string as protectedResource’s resource)`,
        );
      return { scope: resource.scopes.join(' '), audience: indicator, accessTokenTTL: resource.ttlSeconds, accessTokenFormat: 'jwt', jwt: { sign: { alg: options.signingAlg } } };
    },
  };
}

/**
 * The registration policy, as oidc-provider's hook on client metadata (it runs for every client,
 * and acts on registrations only): allowed redirect URIs, the code flow only, and a public client
 * unless the request carries an initial access token.
 */
function registrationChecks(lib: OidcProviderModule, policy: ResolvedRegistration, resources: ReadonlyMap<string, { scopes: string[] }>): Record<string, unknown> {
  const allowed = new Set(scopesFor(policy.resources, resources).split(' '));
  type Registering = { oidc?: { route?: string }; get(header: string): string };
  return {
    properties: ['authgate_registered'],
    validator: (octx: Registering | undefined, _key: string, _value: unknown, metadata: Record<string, unknown>) => {
      if (octx?.oidc?.route !== 'registration') return;
      const refused = policy.refuseRedirects(metadata.redirect_uris);
      if (refused !== undefined) throw new lib.errors.InvalidRedirectUri(`redirect_uris: ${refused}`);
      const logout = policy.refusePostLogoutRedirects(metadata.post_logout_redirect_uris);
      if (logout !== undefined) throw new lib.errors.InvalidClientMetadata(`post_logout_redirect_uris: ${logout}`);
      const internal = policy.refuseInternalUris(metadata);
      if (internal !== undefined) throw new lib.errors.InvalidClientMetadata(internal);
      const grants = Array.isArray(metadata.grant_types) ? metadata.grant_types : [];
      if (grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
        throw new lib.errors.InvalidClientMetadata('registered clients use the code flow (grant_types authorization_code, refresh_token)');
      if (metadata.token_endpoint_auth_method !== 'none' && !policy.hasInitialAccessToken(octx.get('authorization')))
        throw new lib.errors.InvalidClientMetadata('without an initial access token only public clients register (token_endpoint_auth_method: none, with PKCE)');
      // A registered client asks only for the scopes of the resources it may use (and OpenID Connect's).
      if (metadata.scope === undefined) metadata.scope = [...allowed].join(' ');
      const outside = String(metadata.scope)
        .split(' ')
        .find((s) => s !== '' && !allowed.has(s));
      if (outside !== undefined) throw new lib.errors.InvalidClientMetadata(`scope ${outside.slice(0, 40)} is not one registered clients may ask for`);
    },
  };
}

/** `acr` of a login with a second factor, and of one without. */
export const ACR = { twoFactors: 'urn:authgate:acr:2fa', oneFactor: 'urn:authgate:acr:1fa' } as const;

/**
 * How an authgate login proved the user: its provider's `amr` values, and `otp` and `mfa` when the
 * user has two-factor on (every login of such a user waited for the second factor).
 */
async function loginProof(ctx: PluginContext, claims: Claims): Promise<{ amr: string[]; acr: string }> {
  const name = claims.auth_provider?.name ?? (claims.user as User | undefined)?.id.split('_')[0] ?? '';
  const amr = [...(ctx.providers.get(name)?.authMethods ?? [])];
  const userId = (claims.user as User | undefined)?.id;
  const second = userId === undefined ? false : await (ctx.service(SECOND_FACTOR_SERVICE)?.isOn(userId) ?? Promise.resolve(false));
  return second ? { amr: [...new Set([...amr, 'otp', 'mfa'])], acr: ACR.twoFactors } : { amr, acr: ACR.oneFactor };
}

/** A user holds grants while the directory knows it and it is not banned (checked at every use of a grant, on every instance). */
async function mayHoldGrants(ctx: PluginContext, accountId: string): Promise<boolean> {
  const record = await ctx.users.get(accountId);
  return record !== undefined && !isBanned(record);
}

const ownToken = async (_octx: unknown, client: { clientId: string }, token: { clientId?: string }): Promise<boolean> => token.clientId === client.clientId;

/** The user of the authgate session cookie of a logout confirmation, read (and verified) before oidc-provider handles it. */
const logoutCookieUsers = new WeakMap<IncomingMessage, string>();

/** An account as the provider asks for it: a user of the directory who is not banned, with the claims it may give. */
function accountFinder(ctx: PluginContext): (octx: unknown, sub: string) => Promise<{ accountId: string; claims(): Promise<Record<string, unknown>> } | undefined> {
  return async (_octx, sub) => {
    const record = await ctx.users.get(sub);
    if (record === undefined || isBanned(record)) return undefined;
    return {
      accountId: sub,
      claims: async () => ({ sub, name: record.name, preferred_username: record.name, ...(record.picture ? { picture: record.picture } : {}), ...(record.email ? { email: record.email } : {}) }),
    };
  };
}

/** What authgate follows of the provider's events: its logout ends the browser's authgate session, a self-registration is audited, an error is logged. */
function listenToProvider(provider: OidcProviderLike, ctx: PluginContext): void {
  // Logging out at the provider (an app's RP-initiated logout) ends the authgate session of that browser too.
  provider.on('end_session.success', (octx) => {
    const { req, res, oidc } = octx as { req: Request; res: Response; oidc: { session?: { accountId?: string } } };
    // Only the authgate session of the user signed out here ends (not that of a user who just
    // signed in instead, whose login made oidc-provider end the previous user's session).
    const ended = oidc.session?.accountId;
    if (ended === undefined || logoutCookieUsers.get(req) !== ended) return;
    ctx.tokens.reset(res);
    void ctx.authenticator.endSession(req).then(
      (claims) => {
        const userId = claims?.user?.id;
        if (userId === undefined) return;
        ctx.events.emit({ type: 'logout', userId, actor: { kind: 'user', id: userId }, session: jtiHash(claims?.jti as string), data: { via: 'identity provider' } });
      },
      () => undefined,
    );
  });
  // A client that registered itself is in the audit log as an admin-made one is, with who made it: nobody signed in.
  provider.on('registration_create.success', (octx, client) => {
    const made = client as { clientId: string; clientName?: string; tokenEndpointAuthMethod?: string };
    const { req } = octx as { req: Request };
    ctx.events.emit(
      {
        type: 'idp.client.registered',
        actor: { kind: 'system' },
        data: { client: made.clientId, name: made.clientName ?? '', type: made.tokenEndpointAuthMethod === 'none' ? 'public' : 'confidential', selfRegistered: true },
      },
      { ip: clientIp(req), userAgent: String(req.headers['user-agent'] ?? '') },
    );
  });
  provider.on('server_error', (_octx, err) => logTo(ctx.logger).error('identity provider: {error}', { error: (err as Error | undefined)?.name ?? 'error' }));
}

/** Makes the provider with `keys`: storage on the state store, accounts from the user directory. */
function buildProvider(ctx: PluginContext, options: ResolvedIdpOptions, key: string, keys: SigningJwk[]): { provider: OidcProviderLike; keys: SigningJwk[] } {
  const lib = loadOptional<OidcProviderModule>('oidc-provider', 'the identity provider (authgate/idp)');
  const privateOrigins = originsOf(options.clients.flatMap((c) => (c.backchannelLogoutUri ? [c.backchannelLogoutUri] : [])));
  const path = options.issuer.pathname === '/' ? '' : options.issuer.pathname;
  const ttl = options.ttlSeconds;
  const pages = pageSources(originsOf(options.clients.flatMap((c) => c.postLogoutRedirectUris ?? [])), ctx.translations);
  const provider = new lib.Provider(options.issuer.href.replace(/\/$/, ''), {
    adapter: (model: string) =>
      new StateAdapter(model, ctx.stateStore, (message) => new lib.errors.InvalidGrant(message), model === 'Grant' ? (accountId) => mayHoldGrants(ctx, accountId) : undefined),
    clients: options.clients.map((c) => clientMetadata(c, options.signingAlg, scopesFor(c.resources ?? [], options.resources))),
    jwks: { keys },
    cookies: { keys: [createHmac('sha256', key).update('idp-cookies').digest('base64url')] },
    claims: CLAIMS,
    // The resources' scopes are this server's too: discovery lists them, and a client may register them (RFC 7591 `scope`).
    scopes: scopesFor(options.resources.keys(), options.resources).split(' '),
    pkce: { required: () => true },
    // What clients authenticate with here (discovery lists these): a secret in the Basic header, a signed JWT, or none with PKCE.
    clientAuthMethods: ['none', 'client_secret_basic', 'private_key_jwt'],
    // Every request names its redirect URI (and oidc-provider's filling-in of a missing one fails on a resume URL with a client_id: a 500).
    allowOmittingSingleRegisteredRedirectUri: false,
    acrValues: [ACR.oneFactor, ACR.twoFactors],
    rotateRefreshToken: true,
    responseTypes: ['code'],
    features: {
      devInteractions: { enabled: false },
      deviceFlow: { enabled: true, userCodeInputSource: pages.userCodeInputSource, userCodeConfirmSource: pages.userCodeConfirmSource, successSource: pages.successSource },
      // A client learns about, and revokes, only its own tokens.
      revocation: { enabled: true, allowedPolicy: ownToken },
      introspection: { enabled: true, allowedPolicy: ownToken },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource: pages.logoutSource, postLogoutSuccessSource: pages.postLogoutSuccessSource },
      // Proofs' jti are remembered through the adapter (the state store): a proof replayed on another instance is refused.
      dPoP: { enabled: true, nonceSecret: createHmac('sha256', key).update('idp-dpop-nonce').digest(), requireNonce: () => options.dpopNonce },
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: false, allowUnregisteredRedirectUris: false },
      resourceIndicators: resourceIndicators(lib, options),
      registration:
        options.registration === undefined
          ? { enabled: false }
          : { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false, idFactory: (options.registration as ResolvedRegistration).newClientId },
    },
    ...(options.registration === undefined ? {} : { extraClientMetadata: registrationChecks(lib, options.registration, options.resources) }),
    // What a registered client gets when it says nothing: the provider's one signing algorithm, the code flow.
    clientDefaults: { id_token_signed_response_alg: options.signingAlg, grant_types: ['authorization_code'], response_types: ['code'] },
    renderError: pages.renderError,
    // Its only outgoing calls are back-channel logouts: through the guarded client (private
    // addresses only for the static clients' own endpoints, 5 s, no redirects, small answers).
    fetch: (url: string | URL, init: { method?: string; body?: unknown }) => guardedPost(String(url), init, privateOrigins),
    enabledJWA: { idTokenSigningAlgValues: [options.signingAlg], userinfoSigningAlgValues: [options.signingAlg] },
    ttl: {
      AccessToken: ttl.accessToken,
      IdToken: ttl.idToken,
      RefreshToken: ttl.refreshToken,
      AuthorizationCode: ttl.authorizationCode,
      DeviceCode: ttl.deviceCode,
      Interaction: 3600,
      Session: 14 * 86_400,
      Grant: ttl.refreshToken,
    },
    interactions: { url: (_octx: unknown, interaction: { uid: string }) => `${path}/interaction/${interaction.uid}`, policy: sessionBoundPolicy(lib, ctx) },
    findAccount: accountFinder(ctx),
  });
  provider.proxy = options.trustProxy;
  // A request that fails after touching a session it never saved (GET /device/<unknown>) would make
  // oidc-provider's final save throw, and turn a 400 into a 500: such a session is not worth saving.
  const persist = provider.Session.prototype.persist;
  provider.Session.prototype.persist = function persistSaved(this: { exp?: unknown }): Promise<unknown> {
    return typeof this.exp === 'number' ? persist.call(this) : Promise.resolve(undefined);
  };
  listenToProvider(provider, ctx);
  return { provider, keys };
}

/** The events the identity provider fires. */
export const IDP_EVENT_TYPES = ['idp.client.registered', 'idp.client.removed', 'idp.app.revoked'] as const;

declare module '../../core/audit/auth-event' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the identity provider's event types join the registry
  interface AuthEventTypes extends Record<(typeof IDP_EVENT_TYPES)[number], true> {}
}

/** Ends what the provider granted when authgate's sessions end: a logout, any revocation, a ban, a deprovisioning. */
function followSessions(ctx: PluginContext, logout: IdpLogout): void {
  // Logging out of authgate ends the provider sessions its login made (the apps are told by back channel).
  ctx.events.on('logout', (e) => (e.session !== undefined ? logout.ended(e.session) : undefined));
  // Any end of an authgate session (logout, revocation, "end all", a ban, a deletion) ends the grants it made.
  ctx.sessions.onRevoke((h) =>
    revokeSessionGrants(ctx.stateStore, h).catch((err: unknown) => logTo(ctx.logger).error('the grants of an ended session were not revoked: {error}', { error: (err as Error).message })),
  );
  // A ban ends every grant of the user, whichever session made it (its tokens stop at once anyway: see mayHoldGrants).
  for (const type of ['user.banned', 'org.member.deprovisioned'] as const)
    ctx.events.on(type, async (e) => void (e.userId !== undefined ? await revokeGrants(ctx.stateStore, e.userId) : undefined), { retryAs: 'idp:revoke-grants' });
}

/** The provider's own routes under the issuer, with what authgate adds in front: the logout's user, per-IP limits, RFC 8414's metadata URL, the default scope. */
function addIssuerRoutes(router: Router, ctx: PluginContext, checked: ResolvedIdpOptions, provider: () => Promise<OidcProviderLike>): void {
  const path = checked.issuer.pathname === '/' ? '' : checked.issuer.pathname;
  // oidc-provider's logout event cannot wait: whose authgate session this browser holds is read first.
  router.post(`${path}/session/end/confirm`, (req, _res, next) => {
    ctx.tokens.peek(req).then(
      (claims) => {
        const userId = (claims?.user as User | undefined)?.id;
        if (userId !== undefined) logoutCookieUsers.set(req, userId);
        next();
      },
      () => next(),
    );
  });
  const perIp =
    (limit: string, message: string) =>
    (req: Request, res: Response, next: (err?: unknown) => void): void => {
      ctx.rateLimit(limit, clientIp(req)).then(
        () => next(),
        (err: unknown) => {
          if (!(err instanceof RateLimitError)) return next(err);
          res.setHeader('Retry-After', String(err.retryAfter));
          // The shape of the provider's own errors (RFC 6749 5.2, RFC 7591 3.2.2), with authgate's code.
          sendJson(res, 429, { error: 'rate_limited', error_description: `${message}; try again in ${err.retryAfter} s`, code: 'rate_limited' });
        },
      );
    };
  // A user code is short (8 letters): entering codes is limited per client IP.
  router.post(`${path}/device`, perIp('idpDeviceCodePerIp', 'too many codes entered: wait and try again'));
  if (checked.registration !== undefined)
    router.post(
      `${path}/reg`,
      perIp('idpRegistrationPerIp', 'too many client registrations from this address (createAuth rateLimits.idpRegistrationPerIp): a client keeps its registration and registers once'),
    );
  // RFC 8414's metadata URL for an issuer with a path (/.well-known/oauth-authorization-server/oidc): the same document as discovery.
  if (path !== '') router.get(`/.well-known/oauth-authorization-server${path}`, (req, _res, next) => forwardTo(`${path}/.well-known/openid-configuration`, req, next));
  router.get(`${path}/auth`, (req, _res, next) => void defaultScope(req, checked.resources, provider).then(() => next(), next));
  router.use(path || '/', (req, res, next) => {
    provider().then(
      (p) => p.callback()(req, res),
      (err: unknown) => next(err),
    );
  });
}

/**
 * authgate as an OpenID Provider for the team's other apps, native apps and CLIs, on
 * `oidc-provider`: `createAuth({ plugins: [idp] })` and `app.use(idp.router)`. Logins are authgate's
 * own sessions; codes, tokens, grants and keys live in the state store, so several instances
 * serve one issuer.
 */
export function identityProvider(options: IdentityProviderOptions & { key: string }): IdentityProviderPlugin {
  requirePackages(['oidc-provider', 'jose'], 'the identity provider (authgate/idp)');
  if (options === null || typeof options !== 'object') throw configError('identityProvider() takes an options object: { key, clients }');
  if (typeof options.key !== 'string' || options.key.length < 32) throw configError('identityProvider: key must be a secret of at least 32 characters (it seals the signing keys and signs cookies)');
  // Checked now with a stand-in URL, so a mistake fails at start-up; resolved against the app's URL in setup.
  checkIdpOptions(options, new URL('http://localhost/'));
  let started: Promise<{ provider: OidcProviderLike; keys: SigningJwk[] }> | undefined;
  let resolved: ResolvedIdpOptions | undefined;
  let reloadKeys: (() => Promise<void>) | undefined;
  const router = Router();
  // The app mounts this router itself: its requests get the spans of authgate's own routers.
  router.use(tracedRequest);
  const provider = (): Promise<OidcProviderLike> => {
    if (started === undefined) return Promise.reject(new AuthError('unavailable', 'identityProvider(): add it to createAuth({ plugins: [...] }) first'));
    return started.then((s) => s.provider);
  };
  router.use((_req: Request, res: Response, next) => {
    if (resolved === undefined)
      return sendJson(res, 503, { error: 'temporarily_unavailable', error_description: 'the identity provider is not set up: add it to createAuth({ plugins: [...] })', code: 'unavailable' });
    next();
  });
  return {
    name: 'idp',
    eventTypes: IDP_EVENT_TYPES,
    messages: IDP_MESSAGES,
    optional: ['two-factor', 'admin'],
    rateLimits: { idpClientRoutesPerUser: { limit: 60, windowMs: 60_000 }, idpDeviceCodePerIp: { limit: 30, windowMs: 10 * 60_000 }, idpRegistrationPerIp: { limit: 10, windowMs: 3_600_000 } },
    router,
    ready: () => provider().then(() => undefined),
    reloadKeys: () => (reloadKeys ? reloadKeys() : Promise.reject(new AuthError('unavailable', 'identityProvider(): add it to createAuth({ plugins: [...] }) first'))),
    setup(ctx) {
      const checked = checkIdpOptions(options, ctx.url);
      resolved = checked;
      const keysNow = (): Promise<SigningJwk[]> => loadSigningKeys(ctx.stateStore, options.key, checked.signingAlg, checked.keyRotationMs);
      started = keysNow().then((keys) => buildProvider(ctx, checked, options.key, keys));
      started.catch((err: unknown) => logTo(ctx.logger).error('the identity provider did not start: {error}', { error: (err as Error).message }));
      // oidc-provider's keys are fixed when it is made: a rotation (a key made here or on another instance) makes a new one.
      const reload = async (): Promise<void> => {
        const [keys, running] = await Promise.all([keysNow(), started as Promise<{ keys: SigningJwk[] }>]);
        if (keys.map((k) => k.kid).join() !== running.keys.map((k) => k.kid).join()) started = Promise.resolve(buildProvider(ctx, checked, options.key, keys));
      };
      reloadKeys = reload;
      const timer = setInterval(
        () => void reload().catch((err: unknown) => logTo(ctx.logger).warn('the identity provider could not reload its keys: {error}', { error: (err as Error).message })),
        KEY_RELOAD_MS,
      );
      timer.unref();
      ctx.tokens.useServiceSigner(serviceTokenSigner(checked.issuer.href.replace(/\/$/, ''), () => (started as Promise<{ keys: SigningJwk[] }>).then((s) => s.keys)));
      const logout = new IdpLogout(ctx.stateStore, provider, ctx.logger);
      const registry = new ClientRegistry(ctx.stateStore, provider, new Set(checked.clients.map((c) => c.clientId)), checked.signingAlg, checked.resources);
      const statics = new Map<string, IdpClient>(checked.clients.map((c) => [c.clientId, c]));
      const clientOf = async (clientId: string): Promise<IdpClient | undefined> => statics.get(clientId) ?? (await registry.info(clientId)) ?? (await registry.selfRegistered(clientId));
      const grantTtlMs = checked.ttlSeconds.refreshToken * 1000;
      addInteractionRoutes(router, {
        provider,
        options: checked,
        authenticator: ctx.authenticator,
        key: options.key,
        logout,
        proof: (claims) => loginProof(ctx, claims),
        clientOf,
        granted: (sessionHash, grantId) => linkGrantToSession(ctx.stateStore, sessionHash, grantId, grantTtlMs),
        translations: ctx.translations,
      });
      followSessions(ctx, logout);
      const appNames = async (clientIds: string[]): Promise<string[]> => {
        if (clientIds.length === 0) return [];
        const names = await Promise.all(clientIds.map(async (id) => (await clientOf(id))?.name ?? id));
        return [`the access of ${names.length} app${names.length === 1 ? '' : 's'} (${names.join(', ')})`];
      };
      addIssuerRoutes(router, ctx, checked, provider);
      // The admin plugin, when it is on, was set up first (it is optional here): who is an admin is its to say.
      const admins = ctx.service(ADMIN_SERVICE);
      return {
        routes: [
          ...appRouteList({ state: ctx.stateStore, authenticator: ctx.authenticator, clientOf, events: ctx.events }),
          ...clientRouteList({
            registry,
            authenticator: ctx.authenticator,
            isAdmin: (user, claims) => admins?.isAdmin(user, claims) ?? hasAdminAttr(user),
            rateLimit: (name, id) => ctx.rateLimit(name, id),
            events: ctx.events,
          }),
        ],
        userEvents: {
          userDeleted: async (userId) => void (await revokeGrants(ctx.stateStore, userId)),
          // The owner took the account back: every app a stolen session could have let in loses its tokens.
          credentialsReset: async (userId) => appNames(await revokeGrants(ctx.stateStore, userId)),
        },
        health: {
          'identity provider keys': async () => {
            const running = await (started as Promise<{ keys: SigningJwk[] }>);
            if (running.keys.length === 0) throw new Error('the identity provider has no signing key');
          },
        },
        close: async () => clearInterval(timer),
      };
    },
  };
}
