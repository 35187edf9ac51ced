import { AuthError, type Logger, breachedPasswordCheck, type BreachedPasswordOptions, loadOptional } from '../../plugin-kit/helpers';

/** The longest password accepted, in characters (it is digested before bcrypt, so every character counts). */
export const MAX_PASSWORD_CHARS = 256;
/** The shortest password accepted, in characters. */
export const MIN_PASSWORD_CHARS = 8;

/** Rules a new password must pass besides its length (8 to 256 characters, in any script). */
export interface PasswordPolicy {
  /**
   * Refuse the common and breached passwords of an offline list (about 49,000, from the optional
   * package `@zxcvbn-ts/language-common`; no network call), compared without case.
   * @default true
   */
  commonPasswords?: boolean;
  /**
   * Refuse passwords known from breaches (400 `password_breached`), asking a k-anonymity range API
   * (Have I Been Pwned's, or your mirror) with the first 5 characters of the password's SHA-1;
   * `true` uses the defaults of {@link BreachedPasswordOptions}. Asked after every other rule
   * passed, so the network is used only for passwords that could otherwise be saved.
   * @default false
   */
  breached?: boolean | BreachedPasswordOptions;
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
 * the reason (`password_breached` for a breached one). Loads the common-password list at once when
 * the policy uses it; `logger` hears of a range API that did not answer.
 */
export function passwordChecker(policy: PasswordPolicy = {}, logger?: Logger): (password: string, email: string) => Promise<void> {
  const common = policy.commonPasswords === false ? undefined : commonPasswords();
  const breached = policy.breached === undefined || policy.breached === false ? undefined : breachedPasswordCheck(policy.breached === true ? {} : policy.breached, logger);
  return async (password, email) => {
    const length = [...password].length;
    if (length < MIN_PASSWORD_CHARS || length > MAX_PASSWORD_CHARS)
      throw new AuthError('bad_request', `the password must be ${MIN_PASSWORD_CHARS} to ${MAX_PASSWORD_CHARS} characters long`, { reason: 'invalid_password' });
    if (common?.has(password.toLowerCase())) throw new AuthError('bad_request', 'this password is one of the most common ones; choose another', { reason: 'invalid_password' });
    const refusal = policy.check?.(password, email);
    if (typeof refusal === 'string' && refusal !== '') throw new AuthError('bad_request', refusal.slice(0, 200), { reason: 'invalid_password' });
    await breached?.(password);
  };
}
