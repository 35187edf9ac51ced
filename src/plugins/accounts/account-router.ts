import { CORE_MESSAGES, Translations, AuthError, openGuarded, identityKey, PROBE_KEY, probeStore, warningsLogger } from '../../plugin-kit/helpers';
import { clientIp, CrossSitePolicy, asyncHandler, finishRouter, routerShell, type ErrorAnswer } from '../../plugin-kit/http';
import type { User } from '../../plugin-kit/sessions';
import { Lockout, type LockoutRule, type StateStore, ACCOUNT_RATE_LIMITS, RateLimiter, resolveRules, type AccountRateLimit } from '../../plugin-kit/state';
import type { PluginLockout } from '../../plugin-kit/plugin-api';
import { createStateStore } from '../../plugin-kit/storage';
import type { LoginLinks } from '../../plugin-kit/providers';
import { ACCOUNT_MESSAGES } from './account-messages';
import type { Request, Router } from 'express';
import { DuplicateEmailError } from './account-store';
import { accountErrorBody } from './account-error';
import { AccountService, type AccountCredentialChecker } from './account-service';
import type { AccountStore } from './account-store';
import { createAccountStore } from './create-account-store';
import { resolveAccountOptions, type AccountRouterOptions } from './account-options';

/** The router, with the calls an app needs besides the routes. */
export interface AccountRouter extends Router {
  /** A checker for `auth.addDirectProvider(name, accounts.credentialChecker())`: activated accounts log in with e-mail and password. */
  credentialChecker(): AccountCredentialChecker;
  /**
   * The links for `auth.useLoginLinks(accounts.loginLinks())`: logins linked to an account log in
   * as its user (needs `loginSessions`). Throws a config error without it.
   */
  loginLinks(): LoginLinks;
  /** Grants `manage_user` to the account with this e-mail; `false` when there is none. */
  grantManageUser(email: string): Promise<boolean>;
  /**
   * The e-mail of the account a user of the account bridge is, for
   * `createAuth({ credentialNotices: { sender, addressOf: accounts.ownerAddress } })`; `undefined` for other users.
   */
  ownerAddress(user: User): Promise<string | undefined>;
  /** The account store. */
  readonly store: AccountStore;
  /** Closes the store. */
  close(): Promise<void>;
}

function fields(req: Request): Record<string, unknown> {
  const body = (req as { body?: unknown }).body;
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw new AuthError('bad_request', 'the body must be a JSON object or a form');
  }
  return { ...Object.fromEntries(new URLSearchParams(req.originalUrl.split('?')[1] ?? '')), ...(body as Record<string, unknown> | undefined) };
}

function objectBody(req: Request): Record<string, unknown> {
  const body = (req as { body?: unknown }).body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AuthError('bad_request', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** What the accounts plugin hands the account router from the identity core: its rate limits and lockout, on its state store. */
export interface AccountCoreParts {
  /** Counts a hit against one of the account limits, declared by the plugin with the core's (`createAuth({ rateLimits })` sets them). */
  rateLimit(name: AccountRateLimit, identity: string): Promise<void>;
  /** A lockout on the core's state store. */
  lockout(rule: LockoutRule): PluginLockout;
  /** The core's languages (its catalogs and the plugins'). */
  translations: Translations;
}

/** The account limits of a router on its own: its rules, counted in its own state store. */
function ownLimits(store: StateStore, given: AccountRouterOptions['rateLimits'], ipv6Prefix: number): (name: AccountRateLimit, identity: string) => Promise<void> {
  const limiter = new RateLimiter<AccountRateLimit>(store, resolveRules(ACCOUNT_RATE_LIMITS, given), ipv6Prefix);
  return (name, identity) => limiter.hit(name, identity);
}

/** The account service a router serves, with its store, words and limits (in the core's state store inside the identity core). */
function openAccountService(options: AccountRouterOptions, core: AccountCoreParts | undefined) {
  const settled = resolveAccountOptions(options);
  const logger = options.logger ?? warningsLogger;
  const store = openGuarded(
    options.store,
    (uri) => createAccountStore(uri, logger),
    'account store',
    settled.storeTimeout,
    (err) => err instanceof DuplicateEmailError,
  );
  probeStore(options.store, () => store.get(PROBE_KEY), logger);
  // Inside the identity core the counts live in its state store (shared by its instances) under its limits; alone, in a store of the router's own.
  const ownState = core === undefined ? openGuarded(options.stateStore ?? 'memory://', createStateStore, 'state store', settled.storeTimeout) : undefined;
  const lockout = settled.lockout === false ? undefined : (core?.lockout(settled.lockout) ?? new Lockout(ownState as StateStore, settled.lockout, settled.ipv6RateLimitPrefix));
  // Alone, the router speaks the languages of its own words and the core's.
  const translations = core?.translations ?? new Translations({}, [CORE_MESSAGES, ACCOUNT_MESSAGES]);
  const service = new AccountService({ ...settled, lockout, store, sender: options.sender, baseUrl: settled.baseUrl.href.replace(/\/+$/, ''), logger, translations });

  return { settled, logger, store, ownState, translations, service };
}

/** What the account routes share: the service, its words, the limits and the guard of login sessions. */
interface AccountRouteKit {
  service: AccountService;
  translations: Translations;
  /** The guard of login sessions (a CAPTCHA, the identity core's sign-in hooks). */
  guard: AccountRouterOptions['loginSessions'];
  /** Counts hits against per-IP and per-identity limits (429 past one). */
  limit(...hits: Array<[AccountRateLimit, unknown]>): Promise<void>;
  /** Runs `attempt`; a failure on the caller's credential (`wrong` says which) counts against `rule`. */
  failuresCounted<T>(rule: [AccountRateLimit, unknown], wrong: (err: AuthError) => boolean, attempt: () => Promise<T>): Promise<T>;
  /** The account a request's access token names. */
  actor(req: Request): ReturnType<AccountService['authenticate']>;
}

/** The limits and checks every account route uses. */
function accountRouteKit(service: AccountService, translations: Translations, options: AccountRouterOptions, hit: (name: AccountRateLimit, identity: string) => Promise<void>): AccountRouteKit {
  const limit = async (...hits: Array<[AccountRateLimit, unknown]>): Promise<void> => {
    // Only text names an identity: any other JSON is left to the route's check of its fields (400).
    for (const [name, identity] of hits) if (typeof identity === 'string') await hit(name, identityKey(identity));
  };
  return {
    service,
    translations,
    guard: options.loginSessions,
    limit,
    /**
     * Never counted before the attempt: strangers' failures must not refuse the owner's right
     * password or valid code.
     */
    async failuresCounted(rule, wrong, attempt) {
      try {
        return await attempt();
      } catch (err) {
        if (err instanceof AuthError && wrong(err)) await limit(rule);
        throw err;
      }
    },
    actor: (req) => service.authenticate(req.headers.authorization),
  };
}

/** `POST /signup`, `POST /signup/resend`, `GET /active/:id`: sign-up and activation. */
function addSignupRoutes(router: Router, { service, translations, guard, limit }: AccountRouteKit): void {
  const ip = clientIp;
  router.post(
    '/signup',
    asyncHandler(async (req, res) => {
      const body = objectBody(req);
      await limit(['signupPerIp', ip(req)], ['signupPerEmail', body.Email]);
      await guard?.checkAction?.('signup', req);
      await service.signup(body, translations.localeOf(req));
      res.status(202).json({ Message: 'Account created: open the link in the activation mail to activate it' });
    }),
  );
  router.post(
    '/signup/resend',
    asyncHandler(async (req, res) => {
      const body = objectBody(req);
      await limit(['resendPerIp', ip(req)], ['resendPerEmail', body.Email]);
      // It mails as a sign-up does: the same guard (a CAPTCHA) stands before it.
      await guard?.checkAction?.('signup', req);
      await service.resend(body, translations.localeOf(req));
      res.status(202).json({ Message: 'If a sign-up with this e-mail and password waits for activation, a new activation mail is on its way' });
    }),
  );
  router.get(
    '/active/:id',
    asyncHandler(async (req, res) => {
      await limit(['activePerIp', ip(req)], ['activePerId', req.params.id]);
      await service.activate(String(req.params.id), fields(req).code);
      res.json({ Message: 'Account activated' });
    }),
  );
}

/** `GET|POST /tokens` (an access token for a password, or for the browser session) and `DELETE /tokens`. */
function addTokenRoutes(router: Router, { service, guard, limit, failuresCounted, actor }: AccountRouteKit): void {
  const ip = clientIp;
  const sessionUser = guard?.sessionUser;
  const issue = asyncHandler(async (req, res) => {
    const given = fields(req);
    await limit(['tokensPerIp', ip(req)]);
    if (given.grant_type === 'session' && sessionUser && req.method === 'POST') {
      const user = await sessionUser(req, res).catch((err: unknown) => {
        if (err instanceof AuthError && err.reason === 'step_up_required') throw new AuthError('forbidden', `grant_type=session: ${err.message}`, { reason: 'invalid_credential' });
        throw new AuthError('unauthorized', 'grant_type=session needs the session cookie and the X-XSRF-TOKEN header of a signed-in browser', { reason: 'invalid_credential' });
      });
      return void res.json(await service.issueSessionToken(user));
    }
    await guard?.checkAction?.('login', req);
    res.json(
      await failuresCounted(
        ['tokensPerEmail', given.email],
        (err) => err.status === 401,
        () =>
          service.issueToken(given, ip(req)).then(
            async (issued) => {
              await guard?.actionSucceeded?.('login', req);
              return issued;
            },
            async (err: unknown) => {
              if (err instanceof AuthError && err.status === 401) await guard?.actionFailed?.('login', req);
              throw err;
            },
          ),
      ),
    );
  });
  router.get('/tokens', issue);
  router.post('/tokens', issue);
  router.delete(
    '/tokens',
    asyncHandler(async (req, res) => {
      await service.revoke(await actor(req));
      res.json({ Message: 'Token revoked' });
    }),
  );
}

/** `/profile/:id/...` (the profile, password, e-mail, deletion, linked logins) and `GET /profiles`. */
function addProfileRoutes(router: Router, { service, translations, limit, actor }: AccountRouteKit): void {
  router.get(
    '/profile/:id/info',
    asyncHandler(async (req, res) => {
      res.json(await service.profile(await actor(req), String(req.params.id)));
    }),
  );
  router.put(
    '/profile/:id/info',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      res.json(await service.updateProfile(who, String(req.params.id), objectBody(req)));
    }),
  );
  router.post(
    '/profile/:id/change-password',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      await service.changePassword(who, String(req.params.id), objectBody(req));
      res.json({ Message: 'Password changed; other sessions were signed out' });
    }),
  );
  router.post(
    '/profile/:id/email',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      await limit(['emailChangePerId', req.params.id]);
      await service.requestEmailChange(who, String(req.params.id), objectBody(req), translations.localeOf(req));
      res.status(202).json({ Message: 'A code is on its way to the new address; the e-mail changes when it is used' });
    }),
  );
  router.post(
    '/profile/:id/email/confirm',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      await limit(['emailChangePerId', req.params.id]);
      const changed = await service.confirmEmailChange(who, String(req.params.id), objectBody(req));
      // 202: the new address is saved; `Pending` names what is left of it.
      res.status(changed.Pending ? 202 : 200).json(changed);
    }),
  );
  router.delete(
    '/profile/:id',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      const body = (req as { body?: unknown }).body === undefined ? {} : objectBody(req);
      const { pending } = await service.deleteAccount(who, String(req.params.id), body);
      // 202: the account is gone; `Pending` names what could not be removed with it.
      if (pending) res.status(202).json({ Message: 'Account deleted', Pending: pending });
      else res.json({ Message: 'Account deleted' });
    }),
  );
  router.get(
    '/profile/:id/logins',
    asyncHandler(async (req, res) => {
      res.json({ Items: await service.logins(await actor(req), String(req.params.id)) });
    }),
  );
  router.delete(
    '/profile/:id/logins/:userId',
    asyncHandler(async (req, res) => {
      await service.unlinkLogin(await actor(req), String(req.params.id), String(req.params.userId));
      res.json({ Message: 'Login unlinked; its sessions were signed out' });
    }),
  );
  router.get(
    '/profiles',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      const query = fields(req);
      res.json(await service.list(who, query.offset, query.limit));
    }),
  );
}

/** `POST /password/forgot` and `POST /password/reset`. */
function addPasswordRoutes(router: Router, { service, translations, guard, limit, failuresCounted }: AccountRouteKit): void {
  const ip = clientIp;
  router.post(
    '/password/forgot',
    asyncHandler(async (req, res) => {
      const body = objectBody(req);
      await limit(['forgotPerIp', ip(req)], ['forgotPerEmail', body.Email]);
      await guard?.checkAction?.('password-reset', req);
      await service.forgotPassword(body, translations.localeOf(req));
      res.status(202).json({ Message: 'If an activated account has this e-mail, a reset code is on its way' });
    }),
  );
  router.post(
    '/password/reset',
    asyncHandler(async (req, res) => {
      const body = objectBody(req);
      await limit(['resetPerIp', ip(req)]);
      await failuresCounted(
        ['resetPerEmail', body.Email],
        (err) => err.reason === 'invalid_code',
        () => service.resetPassword(body, ip(req), translations.localeOf(req)),
      );
      res.json({ Message: 'Password changed; every session was signed out' });
    }),
  );
}

/**
 * The account service (kidstuff/WebAuth's routes) as a router for any Express app:
 * `POST /signup`, `POST /signup/resend`, `GET /active/:id`, `GET|POST|DELETE /tokens`,
 * `GET|PUT /profile/:id/info`, `POST /profile/:id/change-password`, `POST /profile/:id/email`,
 * `POST /profile/:id/email/confirm`, `DELETE /profile/:id`, `GET /profile/:id/logins`,
 * `DELETE /profile/:id/logins/:userId`, `POST /password/forgot|reset`, `GET /profiles`.
 * Errors are `{Code, Message, Description}`. `core` is given by the accounts plugin: the router
 * then counts its limits and lockout in the identity core's state store, under its limits.
 */
export function createAccountRouter(options: AccountRouterOptions, core?: AccountCoreParts): AccountRouter {
  const { settled, logger, store, ownState, translations, service } = openAccountService(options, core);
  const crossSite = new CrossSitePolicy(settled.baseUrl, options);
  const answer: ErrorAnswer = (res, status, message, err) => {
    const body = accountErrorBody(status, message, err);
    void res.status(status >= 500 ? 503 : status).json(res.req ? { ...body, Description: translations.errorMessage(res.req, body.code, body.Description) } : body);
  };
  const router = routerShell({ refuseCrossSite: (req) => crossSite.isCrossSiteWrite(req), bodyLimit: settled.bodyLimit, parameterLimit: 50, answer });
  const kit = accountRouteKit(service, translations, options, core?.rateLimit ?? ownLimits(ownState as StateStore, options.rateLimits, settled.ipv6RateLimitPrefix));
  for (const add of [addSignupRoutes, addTokenRoutes, addProfileRoutes, addPasswordRoutes]) add(router, kit);
  finishRouter(router, { answer, logger, unexpected: 503, notFound: 'no such route' });

  return Object.assign(router, {
    credentialChecker: () => service.credentialChecker(),
    ownerAddress: (user: User) => service.ownerAddress(user),
    loginLinks: () => service.loginLinks(),
    grantManageUser: (email: string) => service.grantManageUser(email),
    store,
    close: async () => {
      await Promise.all([store.close(), ownState?.close()]);
    },
  }) as AccountRouter;
}
