import { AuthError } from '../errors';
import { canonicalEmail } from '../internal/email-address';
import { hasUnusableChars } from '../internal/text';
import { isSlug } from './org-service';

const bad = (message: string): AuthError => new AuthError('bad_request', message);

/** An optional slug. */
export function slugField(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isSlug(value)) throw bad('slug must be 2 to 48 lower-case letters, digits or -, not starting or ending with -');
  return value;
}

/** `roles` (a list) or `role` (one); at least one, at most 10, each a short name. */
export function rolesField(body: Record<string, unknown>, fallback?: string[]): string[] | undefined {
  const raw = body.roles !== undefined ? body.roles : body.role !== undefined ? [body.role] : undefined;
  if (raw === undefined) return fallback;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 10 || raw.some((r) => typeof r !== 'string' || r.length === 0 || r.length > 32)) {
    throw bad('role must be a role name, or roles a list of 1 to 10 role names');
  }
  return [...new Set(raw as string[])];
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

/** A path parameter of bounded length (an organization, a member, a team, an invitation). */
export function param(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 200 || hasUnusableChars(value)) throw new AuthError('not_found', `${what} not found`);
  return value;
}
