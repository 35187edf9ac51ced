import { requestClient, type EventClient, type CredentialChange, AuthError, type NewAuthEvent } from '../../plugin-kit/helpers';
import type { PluginAuthenticator, PluginRoute } from '../../plugin-kit/plugin-api';
import { clientIp, asyncHandler, sendJson } from '../../plugin-kit/http';
import type { CompletedLogin, LoginRequest } from '../../plugin-kit/providers';
import type { User } from '../../plugin-kit/sessions';
import type { Request, Response } from 'express';
import type { PendingLogins } from './pending-login';
import type { TwoFactor } from './two-factor-service';

/** What the two-factor routes need from the auth service. */
export interface TwoFactorRouteDeps {
  twoFactor: TwoFactor;
  pending: PendingLogins;
  authenticator: PluginAuthenticator;
  /** Counts a code tried by this IP and for this user (`twoFactorPerIp`, `twoFactorPerUser`). */
  limit(ip: string, userId: string): Promise<void>;
  useOnce(key: string, ttlMs: number): Promise<boolean>;
  /** `true` when `useOnce(key)` was called already. */
  wasUsed(key: string): Promise<boolean>;
  /** Finishes a login whose second factor came (the session, cookies and answer). */
  startSession(req: LoginRequest, res: Response, login: CompletedLogin): Promise<void>;
  toLoginRequest(req: Request): LoginRequest;
  /** Tells the owner that two-factor was turned on or off. */
  notify(user: User, change: CredentialChange, client?: EventClient): void;
  /** Records a security event with the request's client. */
  event(event: NewAuthEvent, req: LoginRequest): void;
}

function codeOf(req: Request): string {
  const body = (req as { body?: unknown }).body;
  const code = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).code : undefined;
  if (typeof code !== 'string' || code.trim() === '' || code.length > 32) throw new AuthError('bad_request', 'code is required: the 6 digits of the authenticator app, or a recovery code');
  return code.trim();
}

/** What the two-factor routes share: the limits, the callers and the code check. */
interface TwoFactorRouteKit {
  /** Counts a code tried, per IP and per user. */
  limit(req: Request, userId: string): Promise<void>;
  /** The logged-in user. */
  me(req: Request, res: Response): Promise<User>;
  /** The user of a login fresh enough to change credentials (see `stepUpMaxAge`). */
  steppedUp(req: Request, res: Response): Promise<User>;
  /** Keeps an answer with secrets out of caches. */
  noStore(res: Response): void;
  /** Checks a code of a login or a step-up, and records `second_factor.succeeded` or `.failed`. */
  checked(req: Request, userId: string, code: string, purpose: 'login' | 'step-up'): Promise<void>;
}

function twoFactorRouteKit(deps: TwoFactorRouteDeps): TwoFactorRouteKit {
  return {
    limit: (req, userId) => deps.limit(clientIp(req), userId),
    me: async (req, res) => (await deps.authenticator.tokenClaims(req, res)).user as User,
    steppedUp: async (req, res) => (await deps.authenticator.stepUpClaims(req, res)).user as User,
    noStore: (res) => void res.setHeader('Cache-Control', 'no-store'),
    async checked(req, userId, code, purpose) {
      const event = (type: 'second_factor.succeeded' | 'second_factor.failed'): void => deps.event({ type, userId, actor: { kind: 'user', id: userId }, data: { purpose } }, deps.toLoginRequest(req));
      try {
        await deps.twoFactor.check(userId, code);
      } catch (err) {
        if (err instanceof AuthError && err.status < 500 && err.status !== 429) event('second_factor.failed');
        throw err;
      }
      event('second_factor.succeeded');
    },
  };
}

/** `GET /2fa` (the status), enrolment, its confirmation, and turning it off. */
function enrolmentRoutes(deps: TwoFactorRouteDeps, { limit, me, steppedUp, noStore }: TwoFactorRouteKit): PluginRoute[] {
  const { twoFactor, pending } = deps;
  return [
    {
      method: 'GET',
      path: '/2fa',
      handler: asyncHandler(async (req, res) => {
        noStore(res);
        const waiting = (await pending.read(deps.toLoginRequest(req))) !== undefined;
        const user = await me(req, res).catch((err: unknown) => {
          if (err instanceof AuthError && err.status === 401) return undefined;
          throw err;
        });
        sendJson(res, 200, { pending: waiting, ...(user ? await twoFactor.status(user.id) : {}) });
      }),
    },

    {
      method: 'POST',
      path: '/2fa/enroll',
      handler: asyncHandler(async (req, res) => {
        const user = await steppedUp(req, res);
        noStore(res);
        sendJson(res, 200, await twoFactor.enroll(user));
      }),
    },

    {
      method: 'POST',
      path: '/2fa/confirm',
      handler: asyncHandler(async (req, res) => {
        const user = await steppedUp(req, res);
        const code = codeOf(req);
        await limit(req, user.id);
        noStore(res);
        const recoveryCodes = await twoFactor.confirm(user.id, code);
        deps.notify(user, { kind: 'two-factor', change: 'added' }, requestClient(req));
        sendJson(res, 200, { enabled: true, recoveryCodes });
      }),
    },

    {
      method: 'POST',
      path: '/2fa/disable',
      handler: asyncHandler(async (req, res) => {
        const user = await steppedUp(req, res);
        const code = codeOf(req);
        await limit(req, user.id);
        await twoFactor.disable(user.id, code);
        deps.notify(user, { kind: 'two-factor', change: 'removed' }, requestClient(req));
        sendJson(res, 200, { enabled: false });
      }),
    },
  ];
}

/** The codes that complete something: a step-up of a live session, a login that waits. */
function codeRoutes(deps: TwoFactorRouteDeps, { limit, checked }: TwoFactorRouteKit): PluginRoute[] {
  const { twoFactor, pending } = deps;
  return [
    {
      method: 'POST',
      path: '/2fa/step-up',
      handler: asyncHandler(async (req, res) => {
        // The session cookie of a live session, of any age: the code is what makes it fresh again.
        const claims = await deps.authenticator.stepUpClaims(req, res, { anyAge: true });
        const user = claims.user as User;
        const code = codeOf(req);
        // Without a second factor no code can make a login fresh: only signing in again can.
        if (!(await deps.twoFactor.status(user.id)).enabled)
          throw new AuthError('forbidden', 'two-factor is off for this user: sign in again to change your credentials', { reason: 'step_up_required' });
        await limit(req, user.id);
        await checked(req, user.id, code, 'step-up');
        await deps.authenticator.renewLogin(res, claims);
        sendJson(res, 200, { steppedUp: true });
      }),
    },

    {
      method: 'POST',
      path: '/2fa/verify',
      handler: asyncHandler(async (req, res) => {
        const loginReq = deps.toLoginRequest(req);
        const waiting = await pending.read(loginReq);
        if (!waiting) throw new AuthError('unauthorized', 'no login waits for a second factor here: log in again');
        const code = codeOf(req);
        await limit(req, waiting.login.user.id);
        const once = `2fa:${waiting.id}`;
        const completed = (): AuthError => new AuthError('unauthorized', 'this login was completed already: log in again');
        // Asked first so a copy of a completed login does not use up a good code; claimed after the code.
        if (await deps.wasUsed(once)) throw completed();
        await checked(req, waiting.login.user.id, code, 'login');
        if (!(await deps.useOnce(once, twoFactor.options.pendingMs))) throw completed();
        pending.clear(res);
        await deps.startSession(loginReq, res, waiting.login);
      }),
    },
  ];
}

/**
 * `GET /2fa` (status, and whether a login waits in this browser), `POST /2fa/enroll`,
 * `POST /2fa/confirm {code}`, `POST /2fa/disable {code}` (logged in, with XSRF), and
 * `POST /2fa/verify {code}` (completes a login that waits for its second factor).
 */
export function twoFactorRouteList(deps: TwoFactorRouteDeps): PluginRoute[] {
  const kit = twoFactorRouteKit(deps);
  return [...enrolmentRoutes(deps, kit), ...codeRoutes(deps, kit)];
}
