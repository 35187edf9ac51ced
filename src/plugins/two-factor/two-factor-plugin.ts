import { type AuthPlugin, SECOND_FACTOR_SERVICE } from '../../plugin-kit/plugin-api';
import { stateCall } from '../../plugin-kit/state';
import { PendingLogins } from './pending-login';
import { TwoFactor, type SecondFactor } from './two-factor-service';
import { checkTwoFactorOptions, type TwoFactorOptions } from './two-factor-options';
import { twoFactorRouteList } from './two-factor-routes';

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
      const factor = new TwoFactor(ctx.credentials, { ...checked, issuer: checked.issuer ?? ctx.url.host });
      const pending = new PendingLogins(ctx.tokens, factor, ctx.redirects);
      const limit = async (ip: string, userId: string): Promise<void> => {
        await stateCall(() => ctx.rateLimit('twoFactorPerIp', ip));
        await stateCall(() => ctx.rateLimit('twoFactorPerUser', userId));
      };
      const secondFactor: SecondFactor = {
        isOn: (userId) => factor.isOn(userId),
        check: async (userId, code, ip) => {
          await limit(ip, userId);
          await factor.check(userId, code);
        },
      };
      return {
        routes: twoFactorRouteList({
          twoFactor: factor,
          pending,
          authenticator: ctx.authenticator,
          limit,
          useOnce: ctx.kit.useOnce,
          wasUsed: (key) => ctx.wasUsed(key),
          startSession: (req, res, login) => ctx.startSession(req, res, login),
          toLoginRequest: (req) => ctx.toLoginRequest(req),
          notify: ctx.kit.notifyCredentialChange,
          event: (event, req) => ctx.kit.event(event, req),
        }),
        phases: {
          async hold(_req, res, login) {
            if (!(await pending.mustWait(login))) return false;
            await pending.hold(res, { ...login, aud: ctx.kit.resolveAudience(login.aud) });
            return true;
          },
        },
        services: { [SECOND_FACTOR_SERVICE]: secondFactor },
      };
    },
  };
}
