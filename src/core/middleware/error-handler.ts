import type { Request, Response } from 'express';
import { AuthError, errorBody } from '../../base/errors';
import { RateLimitError } from '../limits/rate-limiter';
import type { Translations } from '../i18n/translations';

/** Answers a middleware rejection (401 or 403) instead of the default JSON body. */
export type AuthErrorHandler = (err: AuthError, req: Request, res: Response, status: number) => void;

/** Sends `{"error": message, "code": reason}` with the error's status (and `Retry-After` for a 429), or the `errorHandler` option's answer. */
export function rejectRequest(req: Request, res: Response, err: AuthError, handler: AuthErrorHandler | undefined, translations?: Translations): void {
  if (err instanceof RateLimitError) res.setHeader('Retry-After', String(err.retryAfter));
  if (handler) {
    handler(err, req, res, err.status);
    return;
  }
  // As go-pkgz/auth's refusals carry it: an error body is never to be sniffed as something else.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.status(err.status).json(translations ? translations.errorBody(req, err.status, err.message, err) : errorBody(err.status, err.message, err));
}
