import type { UserListPosition, UserRecord } from './user-store';

/** Which field a search key comes from. */
export type SearchKeyKind = 'name' | 'email';

/** One entry of the search index: a user found under `key`; `other` is the user's other key. */
export interface SearchEntry {
  key: string;
  id: string;
  kind: SearchKeyKind;
  other: string | undefined;
}

/** Beyond every character: `prefix + KEY_END` bounds the keys that start with `prefix`. */
export const KEY_END = '\u{10FFFF}';

/** The searchable form of a name or e-mail: trimmed, NFC, lower-case, without control characters. */
export function searchKey(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const key = text
    .normalize('NFC')
    .replace(/\p{Cc}/gu, '')
    .trim()
    .toLowerCase()
    .slice(0, 256);
  return key === '' ? undefined : key;
}

/** The search entries of a user: by name and by e-mail. */
export function searchEntries(user: Pick<UserRecord, 'id' | 'name' | 'email'>): SearchEntry[] {
  const name = searchKey(user.name);
  const email = searchKey(user.email);
  const entries: SearchEntry[] = [];
  if (name !== undefined) entries.push({ key: name, id: user.id, kind: 'name', other: email });
  if (email !== undefined) entries.push({ key: email, id: user.id, kind: 'email', other: name });
  return entries;
}

/**
 * Whether a search entry that starts with `prefix` is where the user is listed: a user whose name
 * and e-mail both match is listed once, at the name.
 */
export function listedAt(entry: Pick<SearchEntry, 'kind' | 'other'>, prefix: string): boolean {
  return entry.kind === 'name' || entry.other === undefined || !entry.other.startsWith(prefix);
}

/** Whether `user` is still listed under `entry` (an index written apart from the record may lag behind it). */
export function stillListed(user: UserRecord, entry: Pick<SearchEntry, 'key' | 'kind'>): boolean {
  return searchEntries(user).some((e) => e.kind === entry.kind && e.key === entry.key);
}

/** Orders positions as every store does: by key, then id (code unit order). */
export function comparePositions(a: UserListPosition, b: UserListPosition): number {
  const ka = a.key ?? '';
  const kb = b.key ?? '';
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}

/** Whether two versions of a user have the same search entries (so the index need not change). */
export function sameSearchKeys(a: Pick<UserRecord, 'name' | 'email'>, b: Pick<UserRecord, 'name' | 'email'>): boolean {
  return a.name === b.name && a.email === b.email;
}
