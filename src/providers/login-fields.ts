import { AuthError } from '../base/errors';
import type { LoginRequest } from './provider';

/** The longest value accepted in a login field. */
export const MAX_FIELD_LENGTH = 1024;

/**
 * Reads a login field from the parsed body (POST) or the query (GET), checking it is a string of
 * sane length. `undefined` when absent.
 */
export function loginField(req: LoginRequest, name: string): string | undefined {
  let value: unknown;
  if (req.method === 'POST' && req.body !== null && typeof req.body === 'object' && name in req.body) {
    value = (req.body as Record<string, unknown>)[name];
  } else {
    value = req.query.get(name) ?? undefined;
  }
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new AuthError('bad_request', `field ${name} must be a string`);
  if (value.length > MAX_FIELD_LENGTH) throw new AuthError('bad_request', `field ${name} is too long`);
  return value;
}

/** A yes/no login flag such as `session=1`; `1`, `true`, `yes` and `on` mean yes. */
export function loginFlag(req: LoginRequest, ...names: string[]): boolean {
  return names.some((name) => /^(1|true|yes|on)$/i.test(loginField(req, name) ?? ''));
}

/** The requested audience: `aud`, else `site`. */
export function loginAudience(req: LoginRequest): string | undefined {
  return loginField(req, 'aud') || loginField(req, 'site') || undefined;
}

/** For POST logins: refuses a body that is not a parsed JSON object or form. */
export function requireObjectBody(req: LoginRequest): void {
  if (req.method !== 'POST') return;
  if (req.body === undefined) throw new AuthError('bad_request', 'send the body as JSON or as a form (application/x-www-form-urlencoded)');
  if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
    throw new AuthError('bad_request', 'the body must be a JSON object');
  }
}
