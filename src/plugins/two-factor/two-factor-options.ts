import { configError, positiveMs } from '../../plugin-kit/basics';

/** The cookie of a login that waits for its second factor: signed, HttpOnly, a session cookie. */
export const TWO_FACTOR_COOKIE = '2FA-TOKEN';

/** How many one-shot recovery codes a user gets when two-factor is turned on. */
export const RECOVERY_CODES = 10;

/** Options of two-factor authentication (TOTP, RFC 6238): `createAuth({ twoFactor: {...} })`. */
export interface TwoFactorOptions {
  /** Encrypts the TOTP secrets at rest (AES-256-GCM, key derived with HKDF); at least 32 characters. Keep it apart from `secret`. */
  key: string;
  /**
   * Removed: two-factor belongs to the user a login resolves to (after linked logins), whatever
   * provider it came through; only a login that proves two factors itself (a passkey with user
   * verification) skips it. `'all'` is still accepted, as that is what it now is; anything else
   * fails at start-up.
   * @default 'all'
   */
  providers?: 'all' | undefined;
  /** The name authenticator apps show. @default the host of `url` */
  issuer?: string | undefined;
  /** How long a login waits for its second factor, in ms. @default 300000 (5 minutes) */
  pendingMs?: number | undefined;
}

/** {@link TwoFactorOptions} checked, with defaults. */
export interface ResolvedTwoFactorOptions {
  key: string;
  issuer: string;
  pendingMs: number;
}

/** Checks {@link TwoFactorOptions}; the issuer stays unset until the service's URL is known. */
export function checkTwoFactorOptions(options: TwoFactorOptions): Omit<ResolvedTwoFactorOptions, 'issuer'> & { issuer: string | undefined } {
  if (typeof options?.key !== 'string' || options.key.length < 32) throw configError('twoFactor.key must be a secret of at least 32 characters (it encrypts the TOTP secrets)');
  if (options.providers !== undefined && options.providers !== 'all') {
    throw configError(
      'twoFactor.providers is gone: a user with two-factor on gives the second factor at every login, whatever the provider (a passkey with user verification counts as two); remove the option',
    );
  }
  if (options.issuer !== undefined && (typeof options.issuer !== 'string' || options.issuer === '')) throw configError('twoFactor.issuer must be a non-empty name');
  return { key: options.key, issuer: options.issuer, pendingMs: positiveMs('twoFactor.pendingMs', options.pendingMs, 5 * 60_000) };
}
