import type { Request, RequestHandler, Response } from 'express';
import { type PluginRoute, type PluginAuthenticator, eventQuery } from '../../plugin-kit/plugin-api';
import { AuthError, hasUnusableChars, requestClient, type Translations } from '../../plugin-kit/helpers';
import { asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import { stateCall } from '../../plugin-kit/state';
import type { Claims, User } from '../../plugin-kit/sessions';
import type { AdminService } from './admin-service';
import { CONSOLE_CSP, CONSOLE_STYLE, consoleHtml, type ConsoleState } from './console/console-assets';
import { CONSOLE_SCRIPT } from './console/console-script';

/** What the admin routes need. */
export interface AdminRouteDeps {
  admin: AdminService;
  authenticator: PluginAuthenticator;
  /** Counts a hit against one of the plugin's rate limits. */
  rateLimit(name: string, identity: string): Promise<void>;
  /** The claims of the request's token without the XSRF check (a page opened by a link sends no header); only to choose which page to send. */
  peek(req: Request): Promise<Claims | undefined>;
  /** The console's words in the reader's language. */
  translations: Translations;
}

function idParam(req: Request): string {
  const id = req.params.id;
  if (typeof id !== 'string' || id === '' || id.length > 200 || hasUnusableChars(id)) throw new AuthError('not_found', 'no such user');
  return id;
}

function banInput(body: Record<string, unknown>): { reason: string; until: number | undefined } {
  const reason = body.reason;
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 500 || hasUnusableChars(reason)) throw new AuthError('bad_request', 'reason is required: 1 to 500 characters');
  const until = body.until;
  if (until === undefined || until === null) return { reason: reason.trim(), until: undefined };
  const at = typeof until === 'number' ? until : typeof until === 'string' ? Date.parse(until) : NaN;
  if (!Number.isFinite(at) || at <= Date.now() || at > Date.now() + 100 * 365 * 86_400_000) throw new AuthError('bad_request', 'until must be a future time (ms since the epoch, or an ISO date)');
  return { reason: reason.trim(), until: at };
}

function queryText(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) throw new AuthError('bad_request', `${name} must be text of at most ${max} characters`);
  return value;
}

type AdminHandler = (req: Request, res: Response, me: { user: User; claims: Claims }) => Promise<void>;
/** A route for the app's admins: a read, or a write that needs a fresh login (step-up). */
type AsAdmin = (write: boolean, handler: AdminHandler) => RequestHandler;

/** The check every admin route runs: a logged-in admin, within `adminRequestsPerUser`. */
function adminGate({ admin, authenticator, rateLimit }: AdminRouteDeps): AsAdmin {
  return (write, handler) =>
    asyncHandler(async (req, res) => {
      const claims = await authenticator.tokenClaims(req, res);
      const user = claims.user as User;
      if (!admin.isAdmin(user, claims)) throw new AuthError('forbidden', 'admin access required');
      await stateCall(() => rateLimit('adminRequestsPerUser', user.id));
      // Writes: a fresh login through the cookie with its XSRF header (never a token carried off elsewhere).
      const checked = write ? await authenticator.stepUpClaims(req, res) : claims;
      await handler(req, res, { user, claims: checked });
    });
}

/** The users: list, read, ban and unban, end their sessions, act as one. */
function userRoutes({ admin }: AdminRouteDeps, asAdmin: AsAdmin): PluginRoute[] {
  return [
    {
      method: 'GET',
      path: '/admin/users',
      handler: asAdmin(false, async (req, res) => {
        const limit = queryText(req.query.limit, 'limit', 4);
        sendJson(
          res,
          200,
          await admin.list({ query: queryText(req.query.query, 'query', 256), cursor: queryText(req.query.cursor, 'cursor', 2048), limit: limit === undefined ? undefined : Number(limit) }),
        );
      }),
    },
    {
      method: 'GET',
      path: '/admin/users/:id',
      handler: asAdmin(false, async (req, res) => sendJson(res, 200, await admin.get(idParam(req)))),
    },
    {
      method: 'POST',
      path: '/admin/users/:id/ban',
      handler: asAdmin(true, async (req, res, me) => {
        const { reason, until } = banInput(objectBody(req));
        const { user, revoked, pending } = await admin.ban(me.user, idParam(req), reason, until, requestClient(req));
        // 202: the ban stands, and what is left of it is named (its sessions end at their next refresh).
        sendJson(res, pending ? 202 : 200, { status: 'banned', user, revoked, ...(pending ? { pending } : {}) });
      }),
    },
    {
      method: 'POST',
      path: '/admin/users/:id/unban',
      handler: asAdmin(true, async (req, res, me) => sendJson(res, 200, { status: 'active', user: await admin.unban(me.user, idParam(req), requestClient(req)) })),
    },
    {
      method: 'POST',
      path: '/admin/users/:id/sessions/revoke-all',
      handler: asAdmin(true, async (req, res, me) => sendJson(res, 200, { revoked: await admin.revokeAll(me.user, idParam(req), requestClient(req)) })),
    },
    {
      method: 'POST',
      path: '/admin/users/:id/impersonate',
      handler: asAdmin(true, async (req, res, me) => {
        const started = await admin.impersonate(res, me.claims, idParam(req), requestClient(req));
        sendJson(res, 200, { status: 'impersonating', user: started.user, admin: { id: started.act.sub, name: started.act.name }, expires: started.act.exp * 1000 });
      }),
    },
  ];
}

/** The audit log, and the impersonation a session is in (and its end). */
function auditAndImpersonationRoutes({ admin, authenticator }: AdminRouteDeps, asAdmin: AsAdmin): PluginRoute[] {
  return [
    {
      method: 'GET',
      path: '/admin/audit',
      handler: asAdmin(false, async (req, res) => {
        const user = queryText(req.query.user, 'user', 256);
        sendJson(res, 200, await admin.audit({ ...eventQuery(req), userId: user }));
      }),
    },
    // The session's own state: any logged-in user may ask (the example page shows a banner from it).
    {
      method: 'GET',
      path: '/admin/impersonation',
      handler: asyncHandler(async (req, res) => sendJson(res, 200, admin.status(await authenticator.tokenClaims(req, res)))),
    },
    {
      method: 'POST',
      path: '/admin/impersonation/stop',
      handler: asyncHandler(async (req, res) => {
        const claims = await authenticator.tokenClaims(req, res);
        const back = await admin.stop(res, claims, authenticator, requestClient(req));
        sendJson(res, 200, back ? { status: 'stopped', user: back } : { status: 'stopped', user: null });
      }),
    },
  ];
}

/** The console page, its script and its style. */
function consoleRoutes(deps: AdminRouteDeps): PluginRoute[] {
  const { admin } = deps;
  const page = (res: Response, status: number, html: string): void => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.status(status).type('html').send(html);
  };

  return [
    {
      method: 'GET',
      path: '/admin/',
      handler: asyncHandler(async (req, res) => {
        if (!req.originalUrl.split('?')[0]?.endsWith('/')) return void res.redirect(301, `${req.baseUrl}/admin/`);
        // The page holds no data (its script asks the API, which checks everything): the cookie only picks the page.
        const claims = await deps.peek(req);
        const locale = deps.translations.localeOf(req);
        const words = deps.translations.page(locale);
        const scriptWords = deps.translations.wordsUnder('page.admin.', locale);
        const html = (state: ConsoleState): string => consoleHtml(words, state, scriptWords);
        if (claims?.user === undefined || claims.handshake !== undefined) return page(res, 401, html('login'));
        if (!admin.isAdmin(claims.user as User, claims)) return page(res, 403, html('forbidden'));
        page(res, 200, html('console'));
      }),
    },
    {
      method: 'GET',
      path: '/admin/console.js',
      handler: (_req, res) => {
        res.setHeader('Cache-Control', 'no-cache');
        res.type('js').send(CONSOLE_SCRIPT);
      },
    },
    {
      method: 'GET',
      path: '/admin/console.css',
      handler: (_req, res) => {
        res.setHeader('Cache-Control', 'no-cache');
        res.type('css').send(CONSOLE_STYLE);
      },
    },
  ];
}

/**
 * The admin routes under the auth router: `GET /admin/users`, `GET /admin/users/:id`,
 * `POST /admin/users/:id/ban|unban|impersonate`, `POST /admin/users/:id/sessions/revoke-all`,
 * `GET`/`POST /admin/impersonation(/stop)`, and the console at `GET /admin/`. Admins only (403
 * otherwise); writes need a fresh login (`stepUpMaxAge`) with the cookie and its XSRF header.
 */
export function adminRouteList(deps: AdminRouteDeps): PluginRoute[] {
  const asAdmin = adminGate(deps);
  return [...userRoutes(deps, asAdmin), ...auditAndImpersonationRoutes(deps, asAdmin), ...consoleRoutes(deps)];
}
