import { AuthError, canonicalEmail } from '../../plugin-kit/helpers';
import { isSlug } from './org-service';

const bad = (message: string): AuthError => new AuthError('bad_request', message);

/** An optional slug. */
export function slugField(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isSlug(value)) throw bad('slug must be 2 to 48 lower-case letters, digits or -, not starting or ending with -');
  return value;
}

/** An optional list of team ids. */
export function teamsField(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 100 || value.some((t) => typeof t !== 'string' || t.length === 0 || t.length > 64)) throw bad('teams must be a list of team ids');
  return [...new Set(value as string[])];
}

/** The invited address, in canonical form. */
export function emailField(value: unknown): string {
  const email = typeof value === 'string' && value.length <= 320 ? canonicalEmail(value) : undefined;
  if (email === undefined) throw bad('email must be an e-mail address');
  return email;
}

/** The invitation token of an accept. */
export function tokenField(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{20,200}$/.test(value)) throw bad('token is required: the one in the invitation link');
  return value;
}
