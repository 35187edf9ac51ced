import type { Request, Router } from 'express';
import { configError } from '../errors';
import { openGuarded } from '../internal/guarded-store';
import { positiveMs } from '../internal/option-checks';
import { loadBcrypt } from './passwords';
import { DuplicateEmailError } from './account-store';
import { canonicalEmail, identityKey } from '../internal/email-address';
import { CrossSitePolicy, type CrossSiteOptions } from '../internal/cross-origin';
import { asyncHandler } from '../internal/async-handler';
import { finishRouter, routerShell, type ErrorAnswer } from '../internal/router-shell';
import { noopLogger, type Logger } from '../logger';
import type { Sender } from '../senders/sender';
import { AccountError } from './account-error';
import { AccountService, type AccountCredentialChecker } from './account-service';
import type { AccountStore } from './account-store';
import { createAccountStore } from './create-account-store';
import { ACCOUNT_RATE_LIMITS, RateLimiter, RateLimitError, resolveRules, type AccountRateLimit, type RateLimitRule } from '../limits/rate-limiter';
import { createStateStore } from '../state/create-state-store';
import type { StateStore } from '../state/state-store';

/** Options of {@link createAccountRouter}. */
export interface AccountRouterOptions extends CrossSiteOptions {
  /** An account store, or a URI: `level:///path`, `mongodb://...`, `memory://`. */
  store: AccountStore | string;
  /** Delivers activation mails (e.g. an `EmailSender`). */
  sender: Sender;
  /** The public URL the router is mounted at, for activation links, e.g. `https://example.com/account`. */
  baseUrl: string;
  /** How long an access token is valid, in ms. @default 3600000 (one hour) */
  onlineThreshold?: number;
  /** The activation mail with `{{.Email}}`, `{{.Id}}`, `{{.Code}}`, `{{.Link}}`. @default a short text with the link */
  activationTemplate?: string;
  /** bcrypt cost. @default 12 */
  bcryptRounds?: number;
  /** E-mails that hold `manage_user` once activated. @default [] */
  managers?: string[];
  /** How long an activation code is valid, in ms. @default 86400000 (one day) */
  activationCodeTtl?: number;
  /**
   * Sign-up of an already activated e-mail answers 202 like a fresh sign-up and mails the owner a
   * notice (`existingAccountTemplate`) instead of 409 1.5, so sign-up does not tell who has an account.
   * @default false
   */
  concealExistingAccounts?: boolean;
  /** The notice mailed under `concealExistingAccounts`, with `{{.Email}}`. @default a short text that says what happened and what to do */
  existingAccountTemplate?: string;
  /** Size limit of request bodies. @default 16384 */
  bodyLimit?: number;
  /** How long a store call may take before the request gets a 503. @default 5000 */
  storeTimeout?: number;
  /** Where rate-limit counters live: a state store or its URI; share a mongo one between instances. @default 'memory://' */
  stateStore?: StateStore | string;
  /**
   * Rate limits (429 with Retry-After past them). `false` turns all off; overrides per limit as in `createAuth`.
   * @default signupPerIp 20/10 min, signupPerEmail 5/10 min, resendPerIp 20/10 min, resendPerEmail 3/10 min, tokensPerIp 60/min, tokensPerEmail 10/min, activePerIp 30/min, activePerId 10/min
   */
  rateLimits?: false | Partial<Record<AccountRateLimit, RateLimitRule | false>>;
  /** Where failures are logged (never passwords, codes or tokens). @default noopLogger */
  logger?: Logger;
}

/** The router, with the calls an app needs besides the routes. */
export interface AccountRouter extends Router {
  /** A checker for `auth.addDirectProvider(name, accounts.credentialChecker())`: activated accounts log in with e-mail and password. */
  credentialChecker(): AccountCredentialChecker;
  /** Grants `manage_user` to the account with this e-mail; `false` when there is none. */
  grantManageUser(email: string): Promise<boolean>;
  /** The account store. */
  readonly store: AccountStore;
  /** Closes the store. */
  close(): Promise<void>;
}

const DEFAULT_TEMPLATE =
  'Welcome! Activate your account by opening this link within a day:\n{{.Link}}\n\n' +
  'If you did not sign up, ignore this mail: nothing is activated without this link. ' +
  'A later sign-up with this address replaces this one and makes this link void.\n';
const DEFAULT_EXISTING_TEMPLATE =
  'Someone tried to sign up with {{.Email}}, which already has an account. ' + 'If it was you, log in with your password instead. If it was not, you can ignore this mail: nothing changed.\n';

function fields(req: Request): Record<string, unknown> {
  const body = (req as { body?: unknown }).body;
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw new AccountError(400, 1.0, 'the body must be a JSON object or a form');
  }
  return { ...Object.fromEntries(new URLSearchParams(req.originalUrl.split('?')[1] ?? '')), ...(body as Record<string, unknown> | undefined) };
}

function objectBody(req: Request): Record<string, unknown> {
  const body = (req as { body?: unknown }).body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AccountError(400, 1.0, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * The account service (kidstuff/WebAuth's routes) as a router for any Express app:
 * `POST /signup`, `POST /signup/resend`, `GET /active/:id`, `GET|POST|DELETE /tokens`,
 * `GET|PUT /profile/:id/info`, `POST /profile/:id/change-password`, `GET /profiles`.
 * Errors are `{Code, Message, Description}`.
 */
export function createAccountRouter(options: AccountRouterOptions): AccountRouter {
  if (!options?.sender || typeof options.sender.send !== 'function') throw configError('createAccountRouter() needs a sender for activation mails');
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw configError('createAccountRouter() needs baseUrl, the public URL it is mounted at, e.g. "https://example.com/account"');
  }
  const rounds = options.bcryptRounds ?? 12;
  if (!Number.isInteger(rounds) || rounds < 4 || rounds > 31) throw configError('bcryptRounds must be a whole number from 4 to 31');
  const timeout = positiveMs('storeTimeout', options.storeTimeout, 5000);
  const onlineThreshold = positiveMs('onlineThreshold', options.onlineThreshold, 3_600_000);
  const codeTtl = positiveMs('activationCodeTtl', options.activationCodeTtl, 24 * 3_600_000);
  const bodyLimit = positiveMs('bodyLimit', options.bodyLimit, 16 * 1024);
  for (const name of ['activationTemplate', 'existingAccountTemplate'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'string') throw configError(`options.${name} must be a text template`);
  }
  if (options.managers !== undefined && (!Array.isArray(options.managers) || options.managers.some((m) => typeof m !== 'string' || canonicalEmail(m) === undefined))) {
    throw configError('options.managers must be a list of e-mail addresses');
  }
  // Passwords need bcrypt: a missing package fails here, at start-up, not at the first sign-up.
  loadBcrypt();
  const logger = options.logger ?? noopLogger;
  const store = openGuarded(
    options.store,
    (uri) => createAccountStore(uri, logger),
    'account store',
    timeout,
    (err) => err instanceof DuplicateEmailError,
  );
  const service = new AccountService({
    store,
    sender: options.sender,
    onlineThreshold,
    activationTemplate: options.activationTemplate ?? DEFAULT_TEMPLATE,
    bcryptRounds: rounds,
    baseUrl: base.href.replace(/\/+$/, ''),
    managers: new Set((options.managers ?? []).map((m) => canonicalEmail(m) as string)),
    codeTtl,
    concealExistingAccounts: options.concealExistingAccounts ?? false,
    existingAccountTemplate: options.existingAccountTemplate ?? DEFAULT_EXISTING_TEMPLATE,
    logger,
  });

  const crossSite = new CrossSitePolicy(base, options);
  const answer: ErrorAnswer = (res, status, message, err) => {
    if (err instanceof AccountError) return void res.status(err.status).json(err.toJSON());
    if (err instanceof RateLimitError) return void res.status(429).json(new AccountError(429, 1.0, err.message, 'TooManyRequests').toJSON());
    if (status >= 500) return void res.status(503).json({ Code: 1.0, Message: 'Unavailable', Description: 'the account service is unavailable, try again' });
    res.status(status).json(new AccountError(status, 1.0, message).toJSON());
  };
  const router = routerShell({ refuseCrossSite: (req) => crossSite.isCrossSiteWrite(req), bodyLimit, parameterLimit: 50, answer });
  const actor = (req: Request) => service.authenticate(req.headers.authorization);
  const stateStore = openGuarded(options.stateStore ?? 'memory://', createStateStore, 'state store', timeout);
  const limiter = new RateLimiter<AccountRateLimit>(stateStore, resolveRules(ACCOUNT_RATE_LIMITS, options.rateLimits));
  const limit = async (...hits: Array<[AccountRateLimit, unknown]>): Promise<void> => {
    for (const [name, identity] of hits) await limiter.hit(name, identityKey(String(identity ?? '')));
  };
  const ip = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? '';

  router.post(
    '/signup',
    asyncHandler(async (req, res) => {
      const body = objectBody(req);
      await limit(['signupPerIp', ip(req)], ['signupPerEmail', body.Email]);
      await service.signup(body);
      res.status(202).json({ Message: 'Account created: open the link in the activation mail to activate it' });
    }),
  );
  router.post(
    '/signup/resend',
    asyncHandler(async (req, res) => {
      const body = objectBody(req);
      await limit(['resendPerIp', ip(req)], ['resendPerEmail', body.Email]);
      await service.resend(body);
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
  const issue = asyncHandler(async (req, res) => {
    const given = fields(req);
    await limit(['tokensPerIp', ip(req)], ['tokensPerEmail', given.email]);
    res.json(await service.issueToken(given));
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
  router.get(
    '/profiles',
    asyncHandler(async (req, res) => {
      const who = await actor(req);
      const query = fields(req);
      res.json(await service.list(who, query.offset, query.limit));
    }),
  );
  finishRouter(router, { answer, logger, unexpected: 503, notFound: 'no such route' });

  return Object.assign(router, {
    credentialChecker: () => service.credentialChecker(),
    grantManageUser: (email: string) => service.grantManageUser(email),
    store,
    close: async () => {
      await Promise.all([store.close(), stateStore.close()]);
    },
  }) as AccountRouter;
}
