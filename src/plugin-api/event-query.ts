import type { Request } from 'express';
import type { AuthEventType } from '../core/audit/auth-event';
import { AuthError } from '../base/errors';
import type { EventListOptions } from '../core/events/event-bus';

/** Reads `cursor`, `limit`, `type` (comma-separated), `from` and `to` of a query string; 400 for a malformed one. */
export function eventQuery(req: Request): EventListOptions {
  const text = (name: string, max: number): string | undefined => {
    const value = req.query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > max) throw new AuthError('bad_request', `${name} must be given once, at most ${max} characters`);
    return value;
  };
  const number = (name: string): number | undefined => {
    const value = text(name, 20);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n)) throw new AuthError('bad_request', `${name} must be a number`);
    return n;
  };
  const types = text('type', 1000);
  return { cursor: text('cursor', 64), limit: number('limit'), from: number('from'), to: number('to'), types: types === undefined ? undefined : (types.split(',') as AuthEventType[]) };
}
