import { ACCOUNT_MESSAGES } from './account-messages';
import { Router, type Request } from 'express';
import { configError } from '../../plugin-kit/helpers';
import { type AuthPlugin, LOGIN_LINKS_SERVICE, SECOND_FACTOR_SERVICE } from '../../plugin-kit/plugin-api';
import { DirectProvider } from '../../plugin-kit/providers';
import type { User } from '../../plugin-kit/sessions';
import { ACCOUNT_RATE_LIMITS, resolveRules } from '../../plugin-kit/state';
import { ACCOUNT_ERROR_CODES } from './account-error';
import { resolveAccountOptions, type AccountRouterOptions, type LoginSessions } from './account-options';
import { createAccountRouter, type AccountRouter } from './account-router';

/** The reasons of the account service's refusals (besides the core's). */
const ACCOUNT_ERROR_REASONS = Object.keys(ACCOUNT_ERROR_CODES).filter((reason) => reason !== 'bad_request');

/** Options of the {@link accounts} plugin: those of the account router, without the glue the core now does. */
export interface AccountsPluginOptions extends Omit<AccountRouterOptions, 'loginSessions' | 'store' | 'stateStore' | 'ipv6RateLimitPrefix'> {
  /** An account store, or a URI: `level:///path`, `postgres://...`, `mongodb://...`, `memory://`. @default the `database` of `createAuth`, else 'memory://' */
  store?: AccountRouterOptions['store'] | undefined;
  /** The name of the provider accounts log in through (`/<provider>/login` with e-mail and password). @default 'accounts' */
  provider?: string | undefined;
  /** Logins linked to an account log in as its user (`POST /<provider>/link`). @default true */
  linkLogins?: boolean | undefined;
}

/** The accounts plugin: a plugin, and the account routes the app mounts. */
export interface AccountsPlugin extends AuthPlugin {
  /** The account routes: `app.use('/account', accounts.router)`. They answer 503 until `createAuth` has set the plugin up. */
  readonly router: Router;
  /** The account router's calls (`grantManageUser`, `ownerAddress`, `store`), once `createAuth` has set the plugin up. */
  readonly service: AccountRouter;
}

/**
 * The account service inside the identity core: `createAuth({ plugins: [accounts({...})] })`. Sign-up,
 * activation, tokens, profile, password change and reset, e-mail change and deletion, with the same
 * routes, bodies and error codes as {@link createAccountRouter}; accounts log in through the
 * provider `accounts`, linked logins resolve to them, and a password change, reset or deletion ends
 * sessions and removes credentials through the core (no `loginSessions` to wire).
 */
export function accounts(options: AccountsPluginOptions): AccountsPlugin {
  const { provider = 'accounts', linkLogins = true, ...routerOptions } = options ?? ({} as AccountsPluginOptions);
  resolveAccountOptions({ ...routerOptions, store: routerOptions.store ?? 'memory://' });
  let inner: AccountRouter | undefined;
  const router = Router();
  router.use((req, res, next) => {
    if (inner) return void inner(req, res, next);
    res.status(503).json({ Code: 1.0, Message: 'Unavailable', Description: 'the account service is not set up: add the plugin to createAuth({ plugins })' });
  });
  return {
    name: 'accounts',
    // Counted by the core, in its state store: these are defaults, createAuth({ rateLimits }) sets them with the others.
    rateLimits: resolveRules(ACCOUNT_RATE_LIMITS, routerOptions.rateLimits),
    errorCodes: ACCOUNT_ERROR_REASONS,
    messages: ACCOUNT_MESSAGES,
    optional: ['two-factor', 'linked-logins'],
    router,
    get service(): AccountRouter {
      if (!inner) throw configError('accounts: add the plugin to createAuth({ plugins: [accounts(...)] }) before using it');
      return inner;
    },
    setup(ctx) {
      const loginSessions: LoginSessions = {
        sessions: ctx.sessions,
        provider,
        avatars: ctx.avatars,
        credentials: ctx.credentials,
        twoFactor: ctx.service(SECOND_FACTOR_SERVICE),
        isBanned: (userId) => ctx.users.isBanned(userId),
        // An access token is a credential: minted only under the step-up policy (cookie with XSRF, a live session, a recent login, never an impersonation).
        sessionUser: async (req, res) => (await ctx.authenticator.stepUpClaims(req as Request, res)).user as User,
        onEvent: (type, userId, by) => ctx.events.emit({ type, userId, actor: by === 'owner' ? { kind: 'user', id: userId } : { kind: 'admin' }, data: {} }),
        onUserDeleted: (userId) => ctx.userDeleted(userId),
        onUserIdChanged: (from, to) => ctx.userIdChanged(from, to),
        onCredentialsReset: (userId) => ctx.credentialsReset(userId),
        checkSignIn: (address, method) => ctx.checkSignIn(address, method),
        checkAction: (action, req) => ctx.checkAction(action, ctx.toLoginRequest(req as Request)),
        actionFailed: (action, req) => ctx.actionFailed(action, ctx.toLoginRequest(req as Request)),
        actionSucceeded: (action, req) => ctx.actionSucceeded(action, ctx.toLoginRequest(req as Request)),
      };
      const built = createAccountRouter(
        { ...routerOptions, store: routerOptions.store ?? ctx.storeUri('accounts'), loginSessions },
        { rateLimit: (name, identity) => ctx.rateLimit(name, identity), lockout: (rule) => ctx.lockout(rule), translations: ctx.translations },
      );
      inner = built;
      if (linkLogins) ctx.service(LOGIN_LINKS_SERVICE)?.use(built.loginLinks());
      return {
        providers: [new DirectProvider(provider, built.credentialChecker())],
        close: () => built.close(),
      };
    },
  };
}
