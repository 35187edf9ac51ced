import { loadOptional } from '../internal/optional';
import { AccountError } from './account-error';

/** bcrypt reads at most 72 bytes; longer passwords would be silently cut. */
export const MAX_PASSWORD_BYTES = 72;
/** The shortest password accepted, in bytes. */
export const MIN_PASSWORD_BYTES = 8;

/** Rules a new password must pass besides its length (8 to 72 bytes, bcrypt's limit). */
export interface PasswordPolicy {
  /**
   * Refuse the common and breached passwords of an offline list (about 49,000, from the optional
   * package `@zxcvbn-ts/language-common`; no network call), compared without case.
   * @default true
   */
  commonPasswords?: boolean;
  /** Your own rule: a reason to refuse the password (answered as 400 1.4), or `undefined`. @default none */
  check?(password: string, email: string): string | undefined;
}

let commonList: ReadonlySet<string> | undefined;

/** The offline list, loaded once (a missing package fails where the account router is made). */
function commonPasswords(): ReadonlySet<string> {
  commonList ??= new Set(
    loadOptional<typeof import('@zxcvbn-ts/language-common')>('@zxcvbn-ts/language-common', "the account service's common-password check (or passwordPolicy: { commonPasswords: false })").dictionary[
      'passwords-common'
    ].map((p) => p.toLowerCase()),
  );
  return commonList;
}

/**
 * Makes the check of new passwords (sign-up, change, reset) for a policy; throws 400 1.4 with
 * the reason. Loads the common-password list at once when the policy uses it.
 */
export function passwordChecker(policy: PasswordPolicy = {}): (password: string, email: string) => void {
  const common = policy.commonPasswords === false ? undefined : commonPasswords();
  return (password, email) => {
    const bytes = Buffer.byteLength(password, 'utf8');
    if (bytes < MIN_PASSWORD_BYTES || bytes > MAX_PASSWORD_BYTES) {
      throw new AccountError(400, 1.4, `the password must be ${MIN_PASSWORD_BYTES} to ${MAX_PASSWORD_BYTES} bytes long (${MAX_PASSWORD_BYTES} is the most bcrypt reads)`);
    }
    if (common?.has(password.toLowerCase())) throw new AccountError(400, 1.4, 'this password is one of the most common ones; choose another');
    const refusal = policy.check?.(password, email);
    if (typeof refusal === 'string' && refusal !== '') throw new AccountError(400, 1.4, refusal.slice(0, 200));
  };
}
