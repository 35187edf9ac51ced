/** Machine-readable kinds of failure raised by authgate. */
export type AuthErrorCode =
  | 'config'
  | 'unauthorized'
  | 'forbidden'
  | 'bad_request'
  | 'not_found'
  | 'payload_too_large'
  | 'unavailable'
  | 'internal';

const statusByCode: Record<AuthErrorCode, number> = {
  config: 500,
  unauthorized: 401,
  forbidden: 403,
  bad_request: 400,
  not_found: 404,
  payload_too_large: 413,
  unavailable: 503,
  internal: 500,
};

/**
 * The error type authgate throws and answers with. `status` is the HTTP status the routers use;
 * `message` is safe to show to the client; `cause` (never sent) keeps the underlying error for logs.
 */
export class AuthError extends Error {
  /** The kind of failure. */
  readonly code: AuthErrorCode;
  /** The HTTP status answered for it. */
  readonly status: number;

  /**
   * @param code - the kind of failure.
   * @param message - a message that is safe to send to the client.
   * @param options - `status` overrides the status derived from `code`; `cause` is kept for logs.
   */
  constructor(code: AuthErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AuthError';
    this.code = code;
    this.status = options.status ?? statusByCode[code];
  }
}

/** Thrown at start-up for misuse that can be caught before the first request. */
export function configError(message: string): AuthError {
  return new AuthError('config', `authgate: ${message}`);
}
