import { type PluginContext, type PluginContribution, SECOND_FACTOR_SERVICE } from '../../plugin-kit/plugin-api';
import { stateCall } from '../../plugin-kit/state';
import { PendingLogins } from './pending-login';
import { TwoFactor, type SecondFactor } from './two-factor-service';
import type { checkTwoFactorOptions } from './two-factor-options';
import { twoFactorRouteList } from './two-factor-routes';

/** What the two-factor plugin adds to the service: its routes, the `hold` phase, the second-factor check for other plugins. */
export function setUpTwoFactor(ctx: PluginContext, checked: ReturnType<typeof checkTwoFactorOptions>): PluginContribution {
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
}
