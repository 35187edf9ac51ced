import { configError } from '../../base/errors';
import type { MaybePromise } from '../../core/token/hooks';
import { positiveMs } from '../../internal/option-checks';

/** Options of `auth.addPasskeyProvider(name, options)`. */
export interface PasskeyOptions {
  /** The name browsers show when a passkey is made. @default the host of `url` */
  rpName?: string | undefined;
  /**
   * Whether the authenticator must verify the user (PIN, biometrics). A login with a verified
   * user counts as two factors (it never waits for `twoFactor`).
   * @default 'preferred'
   */
  userVerification?: 'required' | 'preferred' | 'discouraged' | undefined;
  /** How long a browser has to answer a challenge, in ms. @default 300000 (5 minutes) */
  timeoutMs?: number | undefined;
  /**
   * The user id of a user name, for logins that give a name (`{"user": "..."}`) and so list
   * only that user's passkeys. A name with none (unknown, or without passkeys) gets one or two
   * stand-in ids that no authenticator holds, the same on every request, so that the options do
   * not tell who has an account: a browser offers no passkey for them (a user who mistyped the
   * name logs in without one). Without `userIdOf`, any passkey of the site may answer (a discoverable
   * credential).
   * @default undefined
   */
  userIdOf?: (name: string) => MaybePromise<string | undefined>;
  /** How many passkeys one user may have. @default 20 */
  maxPerUser?: number | undefined;
}

/** {@link PasskeyOptions} checked, with defaults. */
export interface ResolvedPasskeyOptions {
  rpName: string;
  rpId: string;
  origin: string;
  userVerification: 'required' | 'preferred' | 'discouraged';
  timeoutMs: number;
  userIdOf: ((name: string) => MaybePromise<string | undefined>) | undefined;
  maxPerUser: number;
}

/** Checks the options; the relying party id and origin come from the app's `url`. */
export function resolvePasskeyOptions(options: PasskeyOptions = {}, url: URL): ResolvedPasskeyOptions {
  const userVerification = options.userVerification ?? 'preferred';
  if (!['required', 'preferred', 'discouraged'].includes(userVerification)) throw configError("passkey userVerification must be 'required', 'preferred' or 'discouraged'");
  if (options.userIdOf !== undefined && typeof options.userIdOf !== 'function') throw configError('passkey userIdOf must be a function');
  const maxPerUser = options.maxPerUser ?? 20;
  if (!Number.isInteger(maxPerUser) || maxPerUser < 1) throw configError('passkey maxPerUser must be a whole number >= 1');
  return {
    rpName: options.rpName ?? url.host,
    rpId: url.hostname,
    origin: url.origin,
    userVerification,
    timeoutMs: positiveMs('passkey timeoutMs', options.timeoutMs, 5 * 60_000),
    userIdOf: options.userIdOf,
    maxPerUser,
  };
}
