import type { AttrValue } from '../token/user';

/** Whether a user may log in: `banned` users are refused by every login path. */
export type UserStatus = 'active' | 'banned';

/** A login that resolved to a user: the provider and the id that provider gave. */
export interface UserLogin {
  /** The provider's name, as in `auth_provider`. */
  provider: string;
  /** The user id that login produced before linked logins resolved it (e.g. `github_<hash>`). */
  id: string;
}

/** One user of the directory, as stored. */
export interface UserRecord {
  /** The user id, as in the token's `user.id`. */
  id: string;
  /** The name of the last login. */
  name: string;
  /** The e-mail of the last login that had one, in canonical form. */
  email?: string | undefined;
  /** The picture URL of the last login (the proxied avatar). */
  picture?: string | undefined;
  /** Every login that resolved to this user, first seen first. */
  logins: UserLogin[];
  /** First login, ms since the epoch. */
  created: number;
  /** Last completed login, ms since the epoch. */
  lastLogin: number;
  /** `active` unless an admin banned the user. */
  status: UserStatus;
  /** The last login's token said admin (`attrs.admin`): an admin cannot ban or impersonate another admin. */
  admin?: boolean | undefined;
  /**
   * Made an admin by the operator (`npx authgate admin`): every login of the user gets `attrs.admin`
   * (before the claims updater, which may still change it). Kept across logins, unlike `admin`.
   */
  adminGrant?: boolean | undefined;
  /** The last login's token's `role` (as the claims updater left it): the admin plugin's `isAdmin` judges records with it. */
  role?: string | undefined;
  /** The last login's token's `attrs` (as the claims updater left them), for the same reason. */
  attrs?: Record<string, AttrValue> | undefined;
  /** Why the user was banned (shown to admins only). */
  banReason?: string | undefined;
  /** When a ban ends by itself, ms since the epoch; absent for a ban until lifted. */
  bannedUntil?: number | undefined;
}

/** Where a page of a user list starts: after this entry of the order the query uses. */
export interface UserListPosition {
  /** The search key of the last user of the previous page (absent when listing by id). */
  key?: string | undefined;
  /** The id of the last user of the previous page. */
  id: string;
}

/** A page request as stores take it: the normalised prefix, where to start, how many. */
export interface UserStoreQuery {
  /** Lower-case prefix of a name or an e-mail; absent lists every user by id. */
  prefix?: string | undefined;
  /** Start after this entry. */
  after?: UserListPosition | undefined;
  /** The most users to return. */
  limit: number;
}

/** A page of users and where the next one starts (absent on the last page). */
export interface UserStorePage {
  users: UserRecord[];
  next?: UserListPosition | undefined;
}

/**
 * The user directory's storage: one record per user id. `add` is atomic on the id and `update` an
 * atomic read-change-write of one record. `list` walks an index in a stable order (by id, or by the
 * search key a prefix matched, then id), so a page costs the same at a thousand users as at a million.
 */
export interface UserStore {
  /** Adds a user; `false` when one with its id exists. */
  add(user: UserRecord): Promise<boolean>;
  /** The user with this id. */
  get(id: string): Promise<UserRecord | undefined>;
  /** Applies `change` atomically; `undefined` from `change` leaves it as it was. Returns the stored result. */
  update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined>;
  /** Deletes a user; `false` when there was none. */
  delete(id: string): Promise<boolean>;
  /** A page of users; see {@link UserStoreQuery}. */
  list(query: UserStoreQuery): Promise<UserStorePage>;
  /** Releases resources. */
  close(): Promise<void>;
}

/** Whether a user is banned at `now`: banned, and the ban has no end or has not ended. */
export function isBanned(user: Pick<UserRecord, 'status' | 'bannedUntil'>, now = Date.now()): boolean {
  return user.status === 'banned' && (user.bannedUntil === undefined || user.bannedUntil > now);
}
