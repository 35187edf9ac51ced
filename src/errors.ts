/** Machine-readable kinds of failure raised by authgate. */
export type AuthErrorCode =
  | 'config'
  | 'unauthorized'
  | 'forbidden'
  | 'bad_request'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
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
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  bad_gateway: 502,
  unavailable: 503,
  internal: 500,
};

/**
 * Why a request was refused, where a client can act on it (sent as `code` beside `error`):
 * `step_up_required` asks for a fresh login before a credential change.
 */
export type AuthErrorReason = 'step_up_required';

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
  /** Why, where a client can act on it; answered as `code`. */
  readonly reason: AuthErrorReason | undefined;

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
    this.reason = options.reason;
  }
}

/** The error of every misuse caught at start-up (bad options, bad registrations): code `config`. */
export function configError(message: string): AuthError {
  return new AuthError('config', `authgate: ${message}`);
}
