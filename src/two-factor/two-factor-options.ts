import { configError } from '../errors';
import { positiveMs } from '../internal/option-checks';

/** Options of two-factor authentication (TOTP, RFC 6238): `createAuth({ twoFactor: {...} })`. */
export interface TwoFactorOptions {
  /** Encrypts the TOTP secrets at rest (AES-256-GCM, key derived with HKDF); at least 32 characters. Keep it apart from `secret`. */
  key: string;
  /**
   * Which logins need the second factor when the user has it on: `'direct'` (direct logins and
   * the account bridge), `'all'` (every provider but passkeys, which prove two factors
   * themselves), or a list of provider names.
   * @default 'direct'
   */
  providers?: 'direct' | 'all' | readonly string[];
  /** The name authenticator apps show. @default the host of `url` */
  issuer?: string;
  /** How long a login waits for its second factor, in ms. @default 300000 (5 minutes) */
  pendingMs?: number;
}

/** {@link TwoFactorOptions} checked, with defaults. */
export interface ResolvedTwoFactorOptions {
  key: string;
  providers: 'direct' | 'all' | readonly string[];
  issuer: string;
  pendingMs: number;
}

/** Checks the `twoFactor` option; `undefined` when two-factor is off. */
export function resolveTwoFactorOptions(options: TwoFactorOptions | undefined, url: URL): ResolvedTwoFactorOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options?.key !== 'string' || options.key.length < 32) throw configError('twoFactor.key must be a secret of at least 32 characters (it encrypts the TOTP secrets)');
  const providers = options.providers ?? 'direct';
  if (providers !== 'direct' && providers !== 'all' && !(Array.isArray(providers) && providers.every((p) => typeof p === 'string'))) {
    throw configError("twoFactor.providers must be 'direct', 'all' or a list of provider names");
  }
  if (options.issuer !== undefined && (typeof options.issuer !== 'string' || options.issuer === '')) throw configError('twoFactor.issuer must be a non-empty name');
  return { key: options.key, providers, issuer: options.issuer ?? url.host, pendingMs: positiveMs('twoFactor.pendingMs', options.pendingMs, 5 * 60_000) };
}
