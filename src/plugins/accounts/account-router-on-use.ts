import type { AccountRouterOptions } from './account-options';
import type { AccountCoreParts, AccountRouter } from './account-router';

/**
 * The account service (kidstuff/WebAuth's routes) as a router for any Express app, as
 * `authgate/accounts` gives it: `POST /signup`, `GET /active/:id`, `/profile/:id/...`,
 * `POST /password/forgot|reset` and the rest (see docs/accounts.md). The root entry's copy loads
 * the account service on its first call, so `require('authgate')` does not.
 */
export function createAccountRouter(options: AccountRouterOptions, core?: AccountCoreParts): AccountRouter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('./account-router') as typeof import('./account-router')).createAccountRouter(options, core);
}
