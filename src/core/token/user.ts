import { createHash } from 'node:crypto';

/** A value kept in a user's `attrs`. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };

/**
 * The logged-in user, as carried in the token's `user` claim. Field names and JSON layout are
 * those of go-pkgz/auth, so tokens can be shared with Go services.
 */
export interface User {
  /** Display name. */
  name: string;
  /** Stable id, `<provider>_<sha1 hex of the provider's id>`. */
  id: string;
  /** Avatar URL (the proxied one after login), or an empty string. */
  picture: string;
  /** The audience (site) the token was issued for. */
  aud?: string;
  /** Client IP, when a provider records it. */
  ip?: string;
  /** E-mail address, when the provider gives one. */
  email?: string;
  /** Free-form attributes; `attrs.admin === true` marks an admin. */
  attrs?: Record<string, AttrValue>;
  /** A role name used by the `rbac` middleware. */
  role?: string;
}

const HEX_40 = /^[0-9a-f]{40}$/;

/**
 * Makes a user id the way every provider does: `<provider>_<sha1 hex of the provider's id>`.
 * An id that already is 40 lower-case hex characters is kept as it is (not hashed again).
 * @param provider - the provider name used as prefix.
 * @param providerId - the id the provider gave (user name, address, numeric id...).
 */
export function hashId(provider: string, providerId: string): string {
  const hashed = HEX_40.test(providerId) ? providerId : createHash('sha1').update(providerId).digest('hex');
  return `${provider}_${hashed}`;
}

/** Reads a string attribute; `''` when it is missing or not a string. */
export function getStrAttr(user: User, key: string): string {
  const value = user.attrs?.[key];
  return typeof value === 'string' ? value : '';
}

/** Reads a boolean attribute; `false` when it is missing or not a boolean. */
export function getBoolAttr(user: User, key: string): boolean {
  return user.attrs?.[key] === true;
}

/** Sets a string attribute in place. */
export function setStrAttr(user: User, key: string, value: string): void {
  user.attrs = { ...user.attrs, [key]: value };
}

/** Sets a boolean attribute in place. */
export function setBoolAttr(user: User, key: string, value: boolean): void {
  user.attrs = { ...user.attrs, [key]: value };
}

/** `true` when `attrs.admin === true`. */
export function isAdmin(user: User): boolean {
  return getBoolAttr(user, 'admin');
}

/** Marks (or unmarks) the user as admin in place. */
export function setAdmin(user: User, admin: boolean): void {
  setBoolAttr(user, 'admin', admin);
}

/** The user's role, `''` when none. */
export function getRole(user: User): string {
  return user.role ?? '';
}

/** Sets the user's role in place. */
export function setRole(user: User, role: string): void {
  user.role = role;
}

/**
 * Sets the audience of the token a user came with (`aud`), in place, as go-pkgz/auth does: an
 * empty one is left out.
 */
export function setAudience(user: User, aud: string | undefined): User {
  if (aud) user.aud = aud;
  else delete user.aud;
  return user;
}

/**
 * A copy of a user that shares nothing a handler could change with the original: its attributes
 * are copied all the way down (they are JSON values).
 */
export function cloneUser(user: User): User {
  const copy = { ...user };
  if (user.attrs !== undefined) copy.attrs = copyAttrs(user.attrs);
  return copy;
}

function copyAttrs(attrs: Record<string, AttrValue>): Record<string, AttrValue> {
  // fromEntries defines keys as data (a "__proto__" key stays a key).
  return Object.fromEntries(Object.entries(attrs).map(([key, value]) => [key, copyAttr(value)]));
}

function copyAttr(value: AttrValue): AttrValue {
  if (Array.isArray(value)) return value.map(copyAttr);
  return value !== null && typeof value === 'object' ? copyAttrs(value) : value;
}
