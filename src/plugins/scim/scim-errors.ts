import type { ServerResponse } from 'node:http';
import { AuthError, codeOfStatus, RateLimitError, StoreUnavailableError, type AuthErrorCode } from '../../plugin-kit/helpers';

/** The schema of a SCIM error (RFC 7644 §3.12). */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The `scimType`s of RFC 7644 §3.12 authgate answers with. */
export type ScimType = 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

/** Whether a status is one a SCIM refusal can carry. */
export const isScimStatus = (status: number): status is ScimStatus => codeOfStatus(status) !== undefined;

/** The statuses of SCIM's refusals. */
export type ScimStatus = 400 | 401 | 403 | 404 | 405 | 409 | 412 | 413 | 415 | 429 | 500 | 502 | 503;

/** A refusal in SCIM's shape: an {@link AuthError} whose `code` follows its status, answered in RFC 7644's error schema. */
export class ScimError extends AuthError {
  override readonly name = 'ScimError';

  /**
   * @param status - the HTTP status.
   * @param detail - a message for a person.
   * @param scimType - RFC 7644's kind of a 400 or 409.
   */
  constructor(
    status: ScimStatus,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(codeOfStatus(status) as AuthErrorCode, detail);
  }
}

/** Sends a SCIM answer (`application/scim+json`). */
export function sendScim(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/scim+json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Answers any error of a SCIM route in RFC 7644's error shape; what is not ours is a 500 without a message. */
export function sendScimError(res: ServerResponse, err: unknown): void {
  let status = 500;
  let detail = 'internal error';
  let scimType: ScimType | undefined;
  if (err instanceof ScimError) ({ status, detail, scimType } = err);
  else if (err instanceof RateLimitError) {
    status = 429;
    detail = 'too many requests with this token: slow down';
    res.setHeader('Retry-After', String(err.retryAfter));
  } else if (err instanceof AuthError) {
    status = err.status;
    detail = err.message;
  } else if (err instanceof StoreUnavailableError) {
    // A store that failed or did not answer: nothing of the request is taken as done, send it again.
    status = 503;
    detail = 'a store is unavailable: send the request again';
  } else if (typeof (err as { status?: unknown })?.status === 'number' && (err as { status: number }).status < 500) {
    // A body the parsers refused (malformed JSON, too large).
    status = (err as { status: number }).status;
    detail = status === 413 ? 'the request body is too large' : 'the request body is not valid JSON';
    if (status === 400) scimType = 'invalidSyntax';
  }
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
  sendScim(res, status, { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail });
}
