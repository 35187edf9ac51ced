/** `authgate/two-factor`: two-factor authentication (TOTP) as a plugin. */
export { twoFactor, SECOND_FACTOR_SERVICE } from './two-factor/two-factor-plugin';
export type { TwoFactorOptions } from './two-factor/two-factor-options';
export { TWO_FACTOR_COOKIE } from './two-factor/pending-login';
export { RECOVERY_CODES, type SecondFactor } from './two-factor/two-factor';
