import { createHash } from 'node:crypto';
import type { AttrValue, User } from '../../core/token/user';
import { hashId } from '../../core/token/user';

/** What a built-in provider reads from its user info; `id` is the provider's raw id. */
export interface ProviderUser {
  id: string;
  name?: string | undefined;
  picture?: string | undefined;
  email?: string | undefined;
  attrs?: Record<string, AttrValue>;
}

/** Reads a dotted path (`data.attributes.full_name`) from parsed JSON. */
export function pick(data: unknown, path: string): unknown {
  let value: unknown = data;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** A string at `path`, or `''`; numbers are turned into strings (numeric ids). */
export function pickString(data: unknown, path: string): string {
  const value = pick(data, path);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return '';
}

/**
 * Makes the authgate user of a provider's user: id `<provider>_<sha1 of the raw id>`, and a name
 * that falls back to `noname_<8 hex>` when the provider gives none.
 */
export function toUser(provider: string, raw: ProviderUser): User {
  if (raw.id === '') throw new Error('the provider gave no user id');
  const id = hashId(provider, raw.id);
  const user: User = {
    name: raw.name?.trim() || `noname_${createHash('sha1').update(id).digest('hex').slice(0, 8)}`,
    id,
    picture: raw.picture ?? '',
  };
  if (raw.email) user.email = raw.email;
  if (raw.attrs && Object.keys(raw.attrs).length > 0) user.attrs = { ...raw.attrs };
  return user;
}

/** Copies provider fields into `attrs`: `{ attrName: 'path.in.user.info' }`; only scalar values. */
export function copyAttributes(user: User, data: unknown, mapping: Readonly<Record<string, string>> | undefined): User {
  if (!mapping) return user;
  const attrs = { ...user.attrs };
  for (const [attr, path] of Object.entries(mapping)) {
    const value = pick(data, path);
    // eslint-disable-next-line no-restricted-syntax -- the app's own attribute names
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') attrs[attr] = value;
  }
  return Object.keys(attrs).length > 0 ? { ...user, attrs } : user;
}
