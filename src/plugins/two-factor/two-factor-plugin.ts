import type { AuthPlugin } from '../../plugin-kit/plugin-api';
import { SECOND_FACTOR_SERVICE } from '../../plugin-kit/plugin-api';
import { checkTwoFactorOptions, type TwoFactorOptions } from './two-factor-options';

/** The name other plugins ask for the second-factor check by (`context.service('secondFactor')`). */
export { SECOND_FACTOR_SERVICE };

/**
 * Two-factor authentication (TOTP, RFC 6238) as a plugin: `createAuth({ plugins: [twoFactor({ key })] })`
 * (or the `twoFactor` option). Routes under `/2fa`; every login of a user with it on waits in the
 * `hold` phase for the second factor, whatever the provider. Options are checked here, at once.
 */
export function twoFactor(options: TwoFactorOptions): AuthPlugin {
  const checked = checkTwoFactorOptions(options);
  return {
    name: 'two-factor',
    rateLimits: { twoFactorPerUser: { limit: 10, windowMs: 10 * 60_000 }, twoFactorPerIp: { limit: 60, windowMs: 10 * 60_000 } },
    setup(ctx) {
      // Loaded when a service sets the plugin up, so require('authgate') (which exports twoFactor) loads none of it.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return (require('./two-factor-setup') as typeof import('./two-factor-setup')).setUpTwoFactor(ctx, checked);
    },
  };
}
