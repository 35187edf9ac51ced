import { configError } from '../base/errors';
import { hasUnusableChars } from '../internal/text';

const RESERVED = /[/?#[\]@!$&'()*+,;=:%\s]/;

/**
 * Checks a provider name at registration: not empty, at most 64 characters, none of the URL's
 * reserved characters, whitespace or control characters, not `.` or `..`, not taken.
 * @throws AuthError (`config`) saying what is wrong.
 */
export function validateProviderName(name: unknown, taken: ReadonlySet<string> | ReadonlyMap<string, unknown>): string {
  if (typeof name !== 'string' || name === '') throw configError('a provider name must be a non-empty string');
  if (name.length > 64) throw configError(`provider name "${name.slice(0, 64)}..." is longer than 64 characters`);
  if (RESERVED.test(name) || hasUnusableChars(name) || name === '.' || name === '..') {
    throw configError(`provider name ${JSON.stringify(name)} has reserved characters; use letters, digits, "-", "_" or "."`);
  }
  if (taken.has(name)) throw configError(`provider "${name}" is already registered`);
  return name;
}
