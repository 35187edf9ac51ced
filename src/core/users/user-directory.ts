import { AuthError } from '../../base/errors';
import { canonicalEmail } from '../../internal/email-address';
import type { User } from '../token/user';
import { searchKey } from './search-keys';
import { isBanned, type UserListPosition, type UserLogin, type UserRecord, type UserStore } from './user-store';

/** The refusal of every login and refresh of a banned user (403 `banned`). */
export function bannedError(): AuthError {
  return new AuthError('forbidden', 'this account is banned', { reason: 'banned' });
}

/** What {@link UserDirectory.list} takes. */
export interface UserListOptions {
  /** A prefix of a name or an e-mail (any case). @default every user, by id */
  query?: string | undefined;
  /** The `next` of the previous page. @default the first page */
  cursor?: string | undefined;
  /** Users per page, 1 to 100. @default 20 */
  limit?: number | undefined;
}

/** A page of users; `next` is the cursor of the following page, absent on the last one. */
export interface UserList {
  users: UserRecord[];
  next?: string | undefined;
}

/** The most users a page holds. */
export const MAX_USER_PAGE = 100;

const LOGINS_KEPT = 50;

/** `lastLogin` is kept to the minute: a login within a minute of the last one, changing nothing else, is not written. */
export const LAST_LOGIN_PRECISION_MS = 60_000;

/** Whether `next` differs from `current` only in `lastLogin`. */
function unchanged(current: UserRecord, next: UserRecord): boolean {
  return (
    current.name === next.name &&
    current.email === next.email &&
    current.picture === next.picture &&
    current.logins.length === next.logins.length &&
    current.admin === next.admin &&
    current.role === next.role &&
    JSON.stringify(current.attrs) === JSON.stringify(next.attrs)
  );
}

/** What of a token's user decides admin rights elsewhere (`role`, `attrs`): kept on the record so they can be judged without the token. */
function powersOf(user: User): Pick<UserRecord, 'role' | 'attrs'> {
  const role = typeof user.role === 'string' && user.role !== '' ? user.role : undefined;
  const attrs = user.attrs !== undefined && user.attrs !== null && typeof user.attrs === 'object' && Object.keys(user.attrs).length > 0 ? { ...user.attrs } : undefined;
  return { role, attrs };
}

function encodeCursor(position: UserListPosition): string {
  return Buffer.from(JSON.stringify(position.key === undefined ? [position.id] : [position.id, position.key])).toString('base64url');
}

function decodeCursor(cursor: string): UserListPosition {
  const bad = (): AuthError => new AuthError('bad_request', 'cursor is malformed: pass the next of the previous page');
  if (cursor.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length < 1 || parsed.length > 2 || parsed.some((p) => typeof p !== 'string')) throw bad();
  return { id: parsed[0] as string, key: parsed[1] as string | undefined };
}

/**
 * The user directory (`auth.users`): who the users are. Every completed login records its user
 * here (name, e-mail, picture, the login it came through, the time); admins list and search it.
 */
export class UserDirectory {
  /** @param store - where the records live (`userStore`). */
  constructor(readonly store: UserStore) {}

  /** The user with this id, or `undefined`. */
  get(id: string): Promise<UserRecord | undefined> {
    return this.store.get(id);
  }

  /** Whether the user is banned now (see `isBanned`); `false` for a user the directory does not know. */
  async isBanned(id: string): Promise<boolean> {
    const record = await this.store.get(id);
    return record !== undefined && isBanned(record);
  }

  /**
   * A page of users: those whose name or e-mail starts with `query`, ordered by that name or
   * e-mail, or every user by id; pass `next` as `cursor` for the following page.
   * @throws AuthError (`bad_request`) for a malformed cursor, a query over 256 characters or a limit outside 1 to 100.
   */
  async list(options: UserListOptions = {}): Promise<UserList> {
    const limit = options.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_USER_PAGE) throw new AuthError('bad_request', `limit must be a whole number from 1 to ${MAX_USER_PAGE}`);
    if (options.query !== undefined && (typeof options.query !== 'string' || options.query.length > 256)) throw new AuthError('bad_request', 'query must be text of at most 256 characters');
    const prefix = searchKey(options.query);
    const after = options.cursor === undefined || options.cursor === '' ? undefined : decodeCursor(options.cursor);
    if (after !== undefined && (after.key === undefined) !== (prefix === undefined)) throw new AuthError('bad_request', 'cursor is from another query: start again without it');
    const page = await this.store.list({ prefix, after, limit });
    return { users: page.users, next: page.next && encodeCursor(page.next) };
  }

  /**
   * Finds the user an operator names: by id, else by e-mail address (canonical, exact).
   * @throws AuthError 404 `not_found` when none matches, 409 `conflict` when several records
   * have the address (name the id then).
   */
  async find(idOrEmail: string): Promise<UserRecord> {
    const byId = await this.store.get(idOrEmail);
    if (byId !== undefined) return byId;
    const email = idOrEmail.includes('@') ? canonicalEmail(idOrEmail) : undefined;
    const found: UserRecord[] = [];
    for (let cursor: string | undefined, pages = 0; email !== undefined && pages < 20; pages++) {
      const page = await this.list({ query: email, cursor, limit: MAX_USER_PAGE });
      found.push(...page.users.filter((u) => u.email === email));
      cursor = page.next;
      if (cursor === undefined) break;
    }
    if (found.length === 0) throw new AuthError('not_found', `no user with the id or e-mail ${JSON.stringify(idOrEmail.slice(0, 256))}: the user must have logged in once`);
    if (found.length > 1) throw new AuthError('conflict', `${found.length} users have the e-mail ${email}: name one by id (${found.map((u) => u.id).join(', ')})`);
    return found[0] as UserRecord;
  }

  /** Grants (or takes back) the operator's admin grant of a user: see {@link UserRecord.adminGrant}. Takes effect at the user's next login. */
  async setAdminGrant(id: string, granted: boolean): Promise<UserRecord> {
    const updated = await this.store.update(id, (current) => {
      const { adminGrant: _old, ...rest } = current;
      return granted ? { ...rest, adminGrant: true } : rest;
    });
    if (updated === undefined) throw new AuthError('not_found', `no user with the id ${JSON.stringify(id.slice(0, 256))}`);
    return updated;
  }

  /**
   * Records a completed login of `user` (after linked logins resolved it) through `login`: creates
   * the record, or updates its name, e-mail, picture and last login and adds the login if new.
   * @param read - the record as the caller read it during this login, so it is not read twice.
   * @throws AuthError 403 `banned` when the user is banned: no login of it completes.
   */
  async recordLogin(user: User, login: UserLogin, at = Date.now(), read?: { record: UserRecord | undefined }): Promise<UserRecord> {
    const email = typeof user.email === 'string' ? canonicalEmail(user.email) : undefined;
    const admin = user.attrs?.admin === true ? true : undefined;
    const powers = powersOf(user);
    const refresh = (current: UserRecord): UserRecord => {
      if (isBanned(current, at)) throw bannedError();
      return {
        ...current,
        admin,
        ...powers,
        name: user.name,
        ...((email ?? current.email) ? { email: email ?? current.email } : {}),
        ...(user.picture || current.picture ? { picture: user.picture || current.picture } : {}),
        lastLogin: at,
        logins: current.logins.some((l) => l.provider === login.provider && l.id === login.id) ? current.logins : [...current.logins, login].slice(-LOGINS_KEPT),
      };
    };
    // A user who logs in again within the minute, unchanged, costs one read: no write, no lock.
    const known = read !== undefined ? read.record : await this.store.get(user.id);
    if (known && isBanned(known, at)) throw bannedError();
    if (known && at - known.lastLogin < LAST_LOGIN_PRECISION_MS && unchanged(known, refresh(known))) return known;
    for (let attempt = 0; attempt < 3; attempt++) {
      const updated = await this.store.update(user.id, refresh);
      if (updated) return updated;
      const created: UserRecord = {
        id: user.id,
        name: user.name,
        ...(email ? { email } : {}),
        ...(user.picture ? { picture: user.picture } : {}),
        logins: [login],
        created: at,
        lastLogin: at,
        status: 'active',
        ...(admin ? { admin } : {}),
        ...(powers.role !== undefined ? { role: powers.role } : {}),
        ...(powers.attrs !== undefined ? { attrs: powers.attrs } : {}),
      };
      if (await this.store.add(created)) return created;
    }
    throw new AuthError('unavailable', 'the user directory kept changing under this login, try again');
  }

  /**
   * Records a user a directory provisioned before any login of it (SCIM): creates the record
   * without logins, or updates its name and e-mail. A ban stays as it is.
   */
  async provision(user: { id: string; name: string; email?: string | undefined }, at = Date.now()): Promise<UserRecord> {
    const email = typeof user.email === 'string' ? canonicalEmail(user.email) : undefined;
    const refresh = (current: UserRecord): UserRecord | undefined =>
      current.name === user.name && (email === undefined || current.email === email) ? undefined : { ...current, name: user.name, ...(email ? { email } : {}) };
    for (let attempt = 0; attempt < 3; attempt++) {
      const updated = await this.store.update(user.id, refresh);
      if (updated) return updated;
      const created: UserRecord = { id: user.id, name: user.name, ...(email ? { email } : {}), logins: [], created: at, lastLogin: 0, status: 'active' };
      if (await this.store.add(created)) return created;
    }
    throw new AuthError('unavailable', 'the user directory kept changing under this change, try again');
  }

  /** Adds `login` to the logins of user `id` (a login linked to it); `undefined` when there is no such user. */
  addLogin(id: string, login: UserLogin): Promise<UserRecord | undefined> {
    return this.store.update(id, (current) =>
      current.logins.some((l) => l.provider === login.provider && l.id === login.id) ? undefined : { ...current, logins: [...current.logins, login].slice(-LOGINS_KEPT) },
    );
  }

  /** Changes a user atomically (a ban, a status); `undefined` when there is no such user. */
  update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined> {
    return this.store.update(id, change);
  }

  /**
   * Moves the record of `from` to `to` (a user whose id changed): its logins join those of `to`,
   * which keeps its own name and times when it exists already. Nothing happens without a record of `from`.
   */
  async move(from: string, to: string): Promise<void> {
    const old = await this.store.get(from);
    if (!old || from === to) return;
    const merged = await this.store.update(to, (current) => ({
      ...current,
      created: Math.min(current.created, old.created),
      logins: [...current.logins, ...old.logins.filter((l) => !current.logins.some((c) => c.provider === l.provider && c.id === l.id))].slice(-LOGINS_KEPT),
    }));
    if (!merged) await this.store.add({ ...old, id: to });
    await this.store.delete(from);
  }

  /** Removes a user from the directory; `false` when there was none. */
  delete(id: string): Promise<boolean> {
    return this.store.delete(id);
  }
}
