/** `authgate/two-factor`: two-factor authentication (TOTP) as a plugin. */
export { twoFactor, SECOND_FACTOR_SERVICE } from './plugins/two-factor/two-factor-plugin';
export type { TwoFactorOptions } from './plugins/two-factor/two-factor-options';
export { RECOVERY_CODES, TWO_FACTOR_COOKIE } from './plugins/two-factor/two-factor-options';
export type { SecondFactor } from './plugins/two-factor/two-factor-service';
