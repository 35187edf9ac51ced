import { reasonOfStatus } from '../base/errors';

/**
 * Every reason the server answers as `code`, by name: the core's kinds and reasons, the account
 * service's, and those of the plugins (API keys, organizations, SSO, CAPTCHA). Written out, so a
 * front end that imports only the client sees them all; the test suite holds them equal to the
 * server's. An app whose own plugin adds codes adds them here too:
 * `declare module 'authgate/client' { interface ServerErrorCodes { plan_required: true } }`.
 */
export interface ServerErrorCodes {
  unauthorized: true;
  forbidden: true;
  bad_request: true;
  not_found: true;
  method_not_allowed: true;
  conflict: true;
  precondition_failed: true;
  payload_too_large: true;
  unsupported_media_type: true;
  rate_limited: true;
  bad_gateway: true;
  unavailable: true;
  internal: true;
  token_missing: true;
  token_invalid: true;
  token_expired: true;
  xsrf_missing: true;
  xsrf_mismatch: true;
  session_revoked: true;
  session_unknown: true;
  session_expired: true;
  token_rejected: true;
  credentials_rejected: true;
  not_activated: true;
  cross_site: true;
  step_up_required: true;
  banned: true;
  password_breached: true;
  invalid_grant_type: true;
  invalid_credential: true;
  password_mismatch: true;
  invalid_password: true;
  email_taken: true;
  invalid_email: true;
  invalid_id: true;
  no_such_id: true;
  invalid_code: true;
  not_linked: true;
  last_login: true;
  second_factor_wrong: true;
  password_reset_required: true;
  scope_required: true;
  limit_reached: true;
  org_required: true;
  not_a_member: true;
  role_required: true;
  permission_required: true;
  last_owner: true;
  slug_taken: true;
  invitation_invalid: true;
  already_member: true;
  domain_unverified: true;
  domain_taken: true;
  saml_invalid: true;
  sso_required: true;
  sso_not_found: true;
  connection_disabled: true;
  member_suspended: true;
  captcha_required: true;
  captcha_invalid: true;
}

/** A reason the server answers as `code` (see {@link ServerErrorCodes}). */
export type ServerErrorCode = keyof ServerErrorCodes;

/**
 * The codes only the client raises: `network_error` (the request never got an answer),
 * `invalid_response` (an answer that is not authgate's JSON), `webauthn_unavailable` (passkeys
 * without `@simplewebauthn/browser`), `webauthn_cancelled` (the browser's passkey prompt was closed
 * or refused).
 */
export type ClientOnlyErrorCode = 'network_error' | 'invalid_response' | 'webauthn_unavailable' | 'webauthn_cancelled';

/**
 * Every `code` an {@link AuthClientError} can carry: the server's reasons and the client's own.
 */
export type AuthClientErrorCode = ServerErrorCode | ClientOnlyErrorCode;

/**
 * A refused or failed call of the client. Tell cases apart by `code` (stable), show `message`
 * (the server's words, in the user's language when translations are on).
 */
export class AuthClientError extends Error {
  /** Why: the server's reason, or a client-only code. */
  readonly code: AuthClientErrorCode;
  /** The HTTP status, `0` when no answer came. */
  readonly status: number;
  /** Seconds to wait before a retry (a 429's `Retry-After`), when the server said. */
  readonly retryAfter: number | undefined;

  /**
   * @param code - why the call failed.
   * @param message - what to show.
   * @param status - the HTTP status (0 without an answer).
   * @param retryAfter - a 429's `Retry-After` in seconds.
   */
  constructor(code: AuthClientErrorCode, message: string, status = 0, retryAfter?: number) {
    super(message);
    this.name = 'AuthClientError';
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** `true` when `err` is an {@link AuthClientError}, of the given code when one is given. */
export function isAuthClientError<C extends AuthClientErrorCode>(err: unknown, code?: C): err is AuthClientError & { code: C } {
  return err instanceof AuthClientError && (code === undefined || err.code === code);
}

/** The error of a refused answer: authgate's `{error, code}` or the account service's `{Code, Message, Description, code}`. */
export function errorOfAnswer(status: number, body: unknown, retryAfter: string | null): AuthClientError {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; error?: unknown; Description?: unknown; error_description?: unknown };
  const code = (typeof answer.code === 'string' ? answer.code : reasonOfStatus(status)) as ServerErrorCode;
  const message = [answer.error_description, answer.error, answer.Description].find((m) => typeof m === 'string') as string | undefined;
  const seconds = Number(retryAfter);
  return new AuthClientError(code, message ?? `request failed with status ${status}`, status, retryAfter !== null && seconds >= 0 ? seconds : undefined);
}
