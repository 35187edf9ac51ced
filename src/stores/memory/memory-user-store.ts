import { comparePositions, listedAt, sameSearchKeys, searchEntries, type SearchEntry } from '../../core/users/search-keys';
import type { UserRecord, UserStore, UserStoreQuery, UserStorePage } from '../../core/users/user-store';

/** The first index in sorted `items` that is not before `probe`. */
function lowerBound<T>(items: readonly T[], before: (item: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(items[mid] as T)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A copy of a record (its only nested values are the logins): cheaper than structuredClone on every login. */
const copy = (user: UserRecord): UserRecord => ({ ...user, logins: user.logins.map((l) => ({ ...l })) });

/** Users in process memory, with sorted indexes: for tests and trials (nothing survives a restart). */
export class MemoryUserStore implements UserStore {
  private readonly users = new Map<string, UserRecord>();
  private readonly ids: string[] = [];
  private readonly entries: SearchEntry[] = [];

  /** @inheritdoc */
  async add(user: UserRecord): Promise<boolean> {
    if (this.users.has(user.id)) return false;
    this.users.set(user.id, copy(user));
    this.ids.splice(
      lowerBound(this.ids, (id) => id < user.id),
      0,
      user.id,
    );
    this.index(user);
    return true;
  }

  /** @inheritdoc */
  async get(id: string): Promise<UserRecord | undefined> {
    const found = this.users.get(id);
    return found && copy(found);
  }

  /** @inheritdoc */
  async update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined> {
    const current = this.users.get(id);
    if (!current) return undefined;
    const next = change(copy(current));
    if (!next) return copy(current);
    const saved = copy({ ...next, id });
    const reindex = !sameSearchKeys(current, saved);
    if (reindex) this.unindex(current);
    this.users.set(id, saved);
    if (reindex) this.index(saved);
    return copy(saved);
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    const current = this.users.get(id);
    if (!current) return false;
    this.users.delete(id);
    this.ids.splice(
      lowerBound(this.ids, (x) => x < id),
      1,
    );
    this.unindex(current);
    return true;
  }

  /** @inheritdoc */
  async list(query: UserStoreQuery): Promise<UserStorePage> {
    const found: UserRecord[] = [];
    if (query.prefix === undefined) {
      const after = query.after?.id;
      for (let i = after === undefined ? 0 : lowerBound(this.ids, (id) => id <= after); i < this.ids.length && found.length <= query.limit; i++) {
        found.push(copy(this.users.get(this.ids[i] as string) as UserRecord));
      }
      const last = found[query.limit - 1];
      return { users: found.slice(0, query.limit), next: found.length > query.limit && last ? { id: last.id } : undefined };
    }
    const prefix = query.prefix;
    const after = query.after;
    const first = after === undefined ? lowerBound(this.entries, (e) => e.key < prefix) : lowerBound(this.entries, (e) => comparePositions(e, after) <= 0);
    const positions: Array<{ key: string; id: string }> = [];
    for (let i = first; i < this.entries.length && found.length <= query.limit; i++) {
      const entry = this.entries[i] as SearchEntry;
      if (!entry.key.startsWith(prefix)) break;
      if (!listedAt(entry, prefix)) continue;
      found.push(copy(this.users.get(entry.id) as UserRecord));
      positions.push({ key: entry.key, id: entry.id });
    }
    return { users: found.slice(0, query.limit), next: found.length > query.limit ? positions[query.limit - 1] : undefined };
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    this.users.clear();
    this.ids.length = 0;
    this.entries.length = 0;
  }

  private index(user: UserRecord): void {
    for (const entry of searchEntries(user)) {
      this.entries.splice(
        lowerBound(this.entries, (e) => comparePositions(e, entry) < 0 || (comparePositions(e, entry) === 0 && e.kind < entry.kind)),
        0,
        entry,
      );
    }
  }

  private unindex(user: UserRecord): void {
    for (const entry of searchEntries(user)) {
      for (let at = lowerBound(this.entries, (e) => comparePositions(e, entry) < 0); at < this.entries.length && comparePositions(this.entries[at] as SearchEntry, entry) === 0; at++) {
        if ((this.entries[at] as SearchEntry).kind === entry.kind) {
          this.entries.splice(at, 1);
          break;
        }
      }
    }
  }
}
