import { errorBody, type AuthErrorReason } from '../../plugin-kit/helpers';

/**
 * The reasons of the account service's refusals and the `Code` and `Message` its answers carry
 * (kidstuff/WebAuth's 1.0 to 1.9, 1.8 unused, then authgate's from 2.0). `bad_request` is 1.0.
 */
export const ACCOUNT_ERROR_CODES = {
  bad_request: [1.0, 'InvalidInput'],
  invalid_grant_type: [1.1, 'InvalidGrantType'],
  invalid_credential: [1.2, 'InvalidCredential'],
  password_mismatch: [1.3, 'PwdMismatch'],
  invalid_password: [1.4, 'InvalidPwd'],
  // Still 1.4 (an invalid password) for WebAuth's clients; the label says why.
  password_breached: [1.4, 'PwdBreached'],
  email_taken: [1.5, 'DupEmail'],
  invalid_email: [1.6, 'InvalidEmail'],
  invalid_id: [1.7, 'InvalidId'],
  no_such_id: [1.9, 'NotExistId'],
  invalid_code: [2.0, 'InvalidCode'],
  not_linked: [2.1, 'NotLinked'],
  last_login: [2.2, 'LastLogin'],
  second_factor_wrong: [2.3, 'SecondFactor'],
  password_reset_required: [2.4, 'PwdResetRequired'],
} as const;

/** A reason the account service answers with its own `Code`. */
export type AccountErrorReason = Exclude<keyof typeof ACCOUNT_ERROR_CODES, 'bad_request'>;

declare module '../../base/errors' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the account service's reasons join the registry
  interface AuthErrorReasons extends Record<AccountErrorReason, true> {}
}

/** The body of an account-service answer: kidstuff/WebAuth's shape. */
export interface AccountErrorBody {
  Code: number;
  Message: string;
  Description: string;
  /**
   * The stable reason, as every authgate answer carries it (`invalid_credential`, `rate_limited`,
   * and those of other plugins, `sso_required`, `captcha_required`..., which have no `Code` of
   * their own in WebAuth's table). WebAuth's clients ignore it.
   */
  code: AuthErrorReason;
}

/** The Message of a refusal whose reason WebAuth's table does not have, by status. */
const OTHER_LABELS: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'TooLarge',
  428: 'PreconditionRequired',
};

/**
 * The one place where an error becomes the account service's wire format: an `AuthError`
 * of an account reason its `Code` and `Message`, a rate limit `TooManyRequests`, a failure of the
 * service `Unavailable` (its message never sent), another plugin's refusal `Forbidden`,
 * `Unauthorized`... by its status, anything else `InvalidInput` (1.0).
 */
export function accountErrorBody(status: number, message: string, err: unknown): AccountErrorBody {
  const reason = errorBody(status, message, err).code;
  if (status === 429) return { Code: 1.0, Message: 'TooManyRequests', Description: message, code: reason };
  if (status >= 500) return { Code: 1.0, Message: 'Unavailable', Description: 'the account service is unavailable, try again', code: reason };
  if (Object.hasOwn(ACCOUNT_ERROR_CODES, reason)) {
    const [code, label] = ACCOUNT_ERROR_CODES[reason as keyof typeof ACCOUNT_ERROR_CODES];
    return { Code: code, Message: label, Description: message, code: reason };
  }
  // Another plugin's reason (sso_required, captcha_required...) has no entry in WebAuth's table: its
  // generic Code, and a Message that says what kind of refusal it is rather than "InvalidInput".
  return { Code: ACCOUNT_ERROR_CODES.bad_request[0], Message: OTHER_LABELS[status] ?? ACCOUNT_ERROR_CODES.bad_request[1], Description: message, code: reason };
}
