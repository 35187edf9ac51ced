import { AuthError } from '../base/errors';

/**
 * `true` when the text has a character no identifier or stored field should hold: an ASCII
 * control character (U+0000 to U+001F, U+007F), or half of a surrogate pair (not text at all:
 * UTF-8 cannot encode it, and PostgreSQL refuses it).
 */
export function hasUnusableChars(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    }
  }
  return false;
}

/** A display name from a request body: 1 to `max` characters of text, trimmed and in NFC; 400 otherwise. */
export function nameField(value: unknown, field: string, max = 100): string {
  if (typeof value !== 'string') throw new AuthError('bad_request', `${field} is required: a text of 1 to ${max} characters`);
  const name = value.trim().normalize('NFC');
  if (name === '' || name.length > max || hasUnusableChars(name)) throw new AuthError('bad_request', `${field} must be 1 to ${max} characters, without control characters`);
  return name;
}

/** A path parameter of bounded length (an organization, a member, a team, an invitation). */
export function param(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 200 || hasUnusableChars(value)) throw new AuthError('not_found', `${what} not found`);
  return value;
}
