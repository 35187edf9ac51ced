/** The name the two-factor plugin gives its {@link SecondFactor} among the plugin services. */
export const SECOND_FACTOR_SERVICE = 'secondFactor';

/** The second-factor check other services use (`auth.twoFactor`, e.g. the account service's `/tokens`). */
export interface SecondFactor {
  /** `true` when the user has two-factor on. */
  isOn(userId: string): Promise<boolean>;
  /** Checks a code (TOTP or recovery) within the two-factor rate limits; a 403 or 429 AuthError otherwise. */
  check(userId: string, code: string, ip: string): Promise<void>;
}

declare module './plugin' {
  interface PluginServices {
    /** The two-factor plugin's check. */
    [SECOND_FACTOR_SERVICE]: SecondFactor;
  }
}
