/** Machine-readable kinds of failure raised by authgate. */
export type AuthErrorCode =
  | 'config'
  | 'unauthorized'
  | 'forbidden'
  | 'bad_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'internal';

const statusByCode: Record<AuthErrorCode, number> = {
  config: 500,
  unauthorized: 401,
  forbidden: 403,
  bad_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  bad_gateway: 502,
  unavailable: 503,
  internal: 500,
};

/**
 * The reasons of refusals, by name: the core's, and those the plugins in use add from their
 * folders (`declare module 'authgate' { interface AuthErrorReasons { my_reason: true } }`), so
 * {@link AuthErrorReason} holds exactly the codes the app can meet. The core's: `token_missing` (no
 * token), `token_invalid` (bad signature, shape, audience, a token that is no login),
 * `token_expired` (past its refresh window), `xsrf_missing` (no XSRF header), `xsrf_mismatch` (a
 * header of another session), `session_revoked` (logged out, revoked, or a refreshed token used
 * again), `session_unknown` (no session record under `unknownSessions: 'reject'`),
 * `session_expired` (older than `sessionMaxAge`), `token_rejected` (the `validator` said no),
 * `credentials_rejected` (a wrong password, basic auth), `not_activated` (an account not activated
 * yet), `cross_site` (a write from another site), `step_up_required` (a credential change needs a
 * fresh login), `banned` (an admin banned the user: no login, no refresh), `password_breached` (a new
 * password known from breaches, see `BreachedPasswordOptions`).
 */
export interface AuthErrorReasons {
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
}

/**
 * Why a request was refused, answered as `code` beside `error` by the auth router and the
 * middleware: stable, so an app tells "log in again" from "send the XSRF header" without reading
 * text. A kind of {@link AuthErrorCode} (`bad_request`, `not_found`, `forbidden`...) or a more
 * specific reason of {@link AuthErrorReasons} (the core's and the plugins').
 */
export type AuthErrorReason = Exclude<AuthErrorCode, 'config'> | keyof AuthErrorReasons;

/**
 * The error type authgate throws and answers with. Its `code` decides the HTTP `status` (one
 * status per code); `message` is safe to show to the client; `cause` (never sent) keeps the
 * underlying error for logs.
 */
export class AuthError extends Error {
  /** The kind of failure. */
  readonly code: AuthErrorCode;
  /** The HTTP status answered for it. */
  readonly status: number;
  /** Why, answered as `code`: a specific reason, else the kind (`config` answers as `internal`). */
  readonly reason: AuthErrorReason;

  /**
   * @param code - the kind of failure.
   * @param message - a message that is safe to send to the client.
   * @param options - `cause` is kept for logs; `reason` is answered as `code`.
   */
  constructor(code: AuthErrorCode, message: string, options: { cause?: unknown; reason?: AuthErrorReason } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AuthError';
    this.code = code;
    this.status = statusByCode[code];
    this.reason = options.reason ?? (code === 'config' ? 'internal' : code);
  }
}

const reasonByStatus: Readonly<Record<number, AuthErrorReason>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  502: 'bad_gateway',
  503: 'unavailable',
};

/** The code answered with `status` (`internal` for 500); `undefined` for a status no code has. */
export function codeOfStatus(status: number): AuthErrorCode | undefined {
  if (status === 500) return 'internal';
  return (Object.keys(statusByCode) as AuthErrorCode[]).find((code) => statusByCode[code] === status);
}

/** The reason an answer of `status` stands for when nothing more specific is known (the browser client reads answers with it too). */
export function reasonOfStatus(status: number): AuthErrorReason {
  return reasonByStatus[status] ?? (status >= 500 ? 'internal' : 'bad_request');
}

/** The JSON body of an error answer: `{"error": message, "code": reason}` (the reason of an {@link AuthError}, else the one of the status). */
export function errorBody(status: number, message: string, err?: unknown): { error: string; code: AuthErrorReason } {
  return { error: message, code: err instanceof AuthError ? err.reason : reasonOfStatus(status) };
}

/** The error of every misuse caught at start-up (bad options, bad registrations): code `config`. */
export function configError(message: string): AuthError {
  return new AuthError('config', `authgate: ${message}`);
}

/** Thrown when a limit is exceeded; answered with 429 and `Retry-After`. */
export class RateLimitError extends AuthError {
  /** Seconds until a retry may pass. */
  readonly retryAfter: number;

  /** @param retryAfter - seconds until a retry may pass. */
  constructor(retryAfter: number) {
    super('rate_limited', `too many requests, retry in ${retryAfter} s`);
    this.retryAfter = retryAfter;
  }
}

/** The name of what was thrown (`TypeError`, `StoreUnavailableError`), or its type when it is not an error: what logs say of a failure without its message, which may hold data. */
export function errorName(err: unknown): string {
  return (err as Error | null | undefined)?.name ?? typeof err;
}

/** Whether `err` is answered as a 503 (an `unavailable` AuthError, or a store that failed): the request changed nothing, and may be sent again. */
export function isUnavailable(err: unknown): boolean {
  return (err instanceof AuthError && err.status === 503) || (err as { code?: unknown } | null)?.code === 'unavailable';
}
