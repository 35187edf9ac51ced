import { clientIp } from '../internal/client-ip';
import type { Request, RequestHandler, Router } from 'express';
import { AuthError } from '../base/errors';
import { RateLimitError } from '../core/limits/rate-limiter';
import type { CrossSitePolicy } from '../internal/cross-origin';
import { asyncHandler } from '../internal/async-handler';
import { sendHtmlPage, sendJson, wantsHtml } from '../internal/http';
import { finishRouter, routerShell, type ErrorAnswer } from '../internal/router-shell';
import { foreignHostWarning } from '../internal/host-check';
import type { Logger } from '../base/logger';
import type { Authenticator } from '../core/middleware/authenticator';
import type { LoginRequest, Provider, ProviderAction, ProviderKit } from '../providers/provider';
import type { TokenService } from '../core/token/token-service';
import { LINK_COOKIE } from '../providers/link-flow';
import type { Claims } from '../core/token/claims';
import { jtiHash } from '../core/sessions/session-registry';
import { RouteTable } from './route-table';
import { addScreensRoute } from './screens-route';
import type { Translations } from '../core/i18n/translations';

/** What the auth router needs from the service. */
export interface AuthRouterDeps {
  crossSite: CrossSitePolicy;
  providers: ReadonlyMap<string, Provider>;
  tokens: TokenService;
  authenticator: Authenticator;
  kit: ProviderKit;
  /** Adds the plugins' routes (before the provider routes), each claimed in the table that holds the core's. */
  addPluginRoutes(router: Router, table: RouteTable): void;
  bodyLimit: number;
  logger: Logger;
  translations: Translations;
  /** The plugins in use, by name (for `GET /screens`). */
  pluginNames: readonly string[];
}

/** The auth router's own routes before the plugins' (the provider routes come after them, so plugins shadow no provider action). */
const CORE_ROUTES = [
  { method: 'GET', path: '/list' },
  { method: 'GET', path: '/screens' },
  { method: 'GET', path: '/user' },
  { method: 'GET', path: '/status' },
  { method: 'ALL', path: '/logout' },
] as const;

const ACTIONS = new Set(['login', 'callback', 'logout', 'link']);
const LINK_METHODS: readonly string[] = ['POST'];
const DEFAULT_METHODS: readonly string[] = ['GET', 'POST'];

/** The provider-facing view of an Express request. */
export function toLoginRequest(req: Request): LoginRequest {
  const q = req.originalUrl.indexOf('?');
  return {
    method: req.method.toUpperCase(),
    query: new URLSearchParams(q === -1 ? '' : req.originalUrl.slice(q + 1)),
    body: (req as { body?: unknown }).body,
    ip: clientIp(req),
    baseUrl: req.baseUrl,
    raw: req,
  };
}

/** A provider's extra action by name (own properties only: a path segment is no key into the prototype). */
function actionOf(provider: Provider | undefined, action: string | undefined): ProviderAction | undefined {
  return provider !== undefined && action !== undefined && Object.hasOwn(provider.actions ?? {}, action) ? provider.actions?.[action] : undefined;
}

/** How the auth router answers an error: a route's own way, a page for a person on a failed callback, else JSON. */
function authErrorAnswer({ providers, translations }: AuthRouterDeps, table: RouteTable): ErrorAnswer {
  return (res, status, message, err) => {
    // A person whose browser lands on a failed callback (a stale tab, another host name)
    // gets a page with a way to start again; API clients get the JSON.
    const req = res.req;
    const own = req && table.errorAnswerFor(req.method, req.path);
    if (own !== undefined) return own(res, status, message, err);
    const step = req && req.method === 'GET' && wantsHtml(req.headers.accept) && status < 500 ? /^\/([^/]+)\/callback$/.exec(req.path) : null;
    if (step && providers.has(step[1] as string)) {
      // No sandbox here: a sandboxed top-level page cannot follow its own link; scripts stay off.
      res.setHeader('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      const words = translations.page(translations.localeOf(req));
      const page = { title: words.t('page.loginFailed.title'), message: translations.errorBody(req, status, message, err).error, lang: words.lang };
      return sendHtmlPage(res, status, { ...page, link: { href: `${req.baseUrl}/${step[1]}/login`, text: words.t('page.loginFailed.link') } });
    }
    sendJson(res, status, translations.errorBody(req, status, message, err));
  };
}

/** A cross-site GET may start a login or come back from a provider, but not log out. */
function crossSiteRefusal(deps: AuthRouterDeps): (req: Request) => boolean {
  // Logins that a cross-site request would complete are refused where every login ends (the LoginCompleter).
  return (req) => {
    const [, first, action] = req.path.split('/');
    const logout = first === 'logout' || action === 'logout';
    if (!(deps.crossSite.isCrossSiteWrite(req) || (logout && deps.crossSite.isCrossSite(req)))) return false;
    const provider = deps.providers.get(first ?? '');
    return !((action === 'callback' && provider?.crossSiteCallback) || actionOf(provider, action)?.crossSite === true);
  };
}

/** Records the end of a session as a `logout` event. */
function logoutRecorder({ kit }: AuthRouterDeps): (req: Request, claims: Claims | undefined) => void {
  return (req, claims) => {
    const userId = claims?.user?.id;
    if (userId === undefined) return;
    kit.event({ type: 'logout', userId, actor: { kind: 'user', id: userId }, session: jtiHash(claims?.jti as string), data: {} }, toLoginRequest(req));
  };
}

/** `GET /list`, `GET /screens`, `GET /user`, `GET /status` and `/logout`. */
function addSessionRoutes(router: Router, deps: AuthRouterDeps, loggedOut: (req: Request, claims: Claims | undefined) => void): void {
  const { providers, tokens, authenticator, translations } = deps;
  router.get('/list', (_req, res) => sendJson(res, 200, [...providers.keys()]));
  addScreensRoute(router, deps);

  router.get(
    '/user',
    asyncHandler(async (req, res) => {
      try {
        sendJson(res, 200, (await authenticator.login(req, res)).user);
      } catch (err) {
        if (!(err instanceof AuthError) || err.status >= 500 || err instanceof RateLimitError) throw err;
        sendJson(res, 401, translations.errorBody(req, 401, err.message, err));
      }
    }),
  );

  router.get(
    '/status',
    asyncHandler(async (req, res) => {
      const read = await tokens.read(req).catch(() => undefined);
      const user = read?.claims.handshake === undefined && !(read && (await authenticator.isSessionOver(read.claims))) ? read?.claims.user : undefined;
      sendJson(res, 200, user ? { status: 'logged in', user: user.name } : { status: 'not logged in' });
    }),
  );

  router.all(
    '/logout',
    asyncHandler(async (req, res) => {
      loggedOut(req, await authenticator.endSession(req));
      tokens.reset(res);
      sendJson(res, 200, { status: 'logged out' });
    }),
  );
}

/** `/:provider/:action(/:arg)`: a provider's login, callback, logout, link or an action of its own. */
function providerRoute(deps: AuthRouterDeps, loggedOut: (req: Request, claims: Claims | undefined) => void): RequestHandler {
  const { providers, tokens, authenticator, kit, translations } = deps;
  // The cookie as a navigation carries it (no XSRF header): only whether a session would be lost is read.
  const holdsSession = async (req: Request): Promise<boolean> => {
    const read = await tokens.readNavigation(req).catch(() => undefined);
    return read?.claims.user !== undefined && read.claims.handshake === undefined;
  };
  return asyncHandler(async (req, res) => {
    const name = String(req.params.provider);
    const action = String(req.params.action);
    const provider = providers.get(name);
    if (provider === undefined) return sendJson(res, 404, translations.errorBody(req, 404, `provider ${name.slice(0, 64)} not supported`));
    const extra = actionOf(provider, action);
    if (extra !== undefined) {
      if (!extra.methods.includes(req.method.toUpperCase())) {
        res.setHeader('Allow', extra.methods.join(', '));
        return sendJson(res, 405, translations.errorBody(req, 405, `use ${extra.methods.join(' or ')}`));
      }
      return extra.handle(toLoginRequest(req), res, kit, req.params.arg === undefined ? undefined : String(req.params.arg));
    }
    if (!ACTIONS.has(action) || req.params.arg !== undefined) return sendJson(res, 404, translations.errorBody(req, 404, `unknown action ${action.slice(0, 64)}`));
    const allowed = action === 'logout' ? undefined : action === 'link' ? LINK_METHODS : (provider.methods?.[action as 'login' | 'callback'] ?? DEFAULT_METHODS);
    if (allowed !== undefined && !allowed.includes(req.method.toUpperCase())) {
      res.setHeader('Allow', allowed.join(', '));
      return sendJson(res, 405, translations.errorBody(req, 405, `use ${allowed.join(' or ')}`));
    }
    const loginReq = toLoginRequest(req);
    if (action === 'login') {
      // A link from another site must not end this browser's session by putting a login's handshake in its cookie
      // (the providers that come back to a callback keep one there; a mailed link's confirmation does not).
      const signedIn = await holdsSession(req);
      if (provider.callback !== undefined && req.method === 'GET' && deps.crossSite.isCrossSite(req) && signedIn) {
        throw new AuthError('forbidden', 'this browser is signed in already: start another login on this site, not from a link of another one', { reason: 'cross_site' });
      }
      // A link is completed only by a login started while the session that asked for it is held: a
      // link left behind (a provider's page abandoned, which took the session cookie's place) must
      // not catch whoever logs in next in this browser.
      if (!signedIn && (req.headers.cookie ?? '').includes(`${LINK_COOKIE}=`)) tokens.clearCookie(res, LINK_COOKIE);
      return provider.login(loginReq, res, kit);
    }
    if (action === 'callback') {
      if (!provider.callback) return sendJson(res, 404, translations.errorBody(req, 404, `provider ${name} has no callback`));
      return provider.callback(loginReq, res, kit);
    }
    loggedOut(req, await authenticator.endSession(req));
    if (provider.logout) return provider.logout(loginReq, res, kit);
    tokens.reset(res);
    return sendJson(res, 200, { status: 'logged out' });
  });
}

/**
 * The auth router: `/list`, `/user`, `/status`, `/logout`, the plugins' routes (`/sessions...`,
 * `/2fa...`, `/<provider>/link`), and `/<provider>/login|callback|logout`. Logging out revokes the session of the request's token.
 * Every answer carries nosniff and a strict CSP; every error is `{"error": "...", "code": "<reason>"}`.
 */
export function createAuthRouter(deps: AuthRouterDeps): Router {
  const table = new RouteTable(CORE_ROUTES);
  const { providers, logger, kit } = deps;
  const answer = authErrorAnswer(deps, table);
  const router = routerShell({
    refuseCrossSite: crossSiteRefusal(deps),
    bodyLimit: deps.bodyLimit,
    bodyLimitFor: (req) => {
      const [, first, action] = req.path.split('/');
      return actionOf(providers.get(first ?? ''), action)?.bodyLimit ?? table.bodyLimitFor(req.method, req.path);
    },
    parameterLimit: 100,
    answer,
  });
  router.use(foreignHostWarning(kit.url, logger));
  const loggedOut = logoutRecorder(deps);
  addSessionRoutes(router, deps, loggedOut);
  deps.addPluginRoutes(router, table);
  const route = providerRoute(deps, loggedOut);
  router.all('/:provider/:action', route);
  router.all('/:provider/:action/:arg', route);
  return finishRouter(router, { answer, logger, unexpected: 500, notFound: 'not found' });
}
