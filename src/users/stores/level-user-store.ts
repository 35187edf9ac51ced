import type { Level } from 'level';
import { KeyLock } from '../../internal/key-lock';
import { openLevel } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import { KEY_END, listedAt, sameSearchKeys, searchEntries, type SearchEntry, type SearchKeyKind } from '../search-keys';
import type { UserRecord, UserStore, UserStoreQuery, UserStorePage } from '../user-store';

const USER = 'user!';
/** `ukey!<key>\0<id>\0<kind>` → the other key: the search index, in byte order. */
const KEY = 'ukey!';
const SEP = '\u0000';

const entryKey = (e: Pick<SearchEntry, 'key' | 'id' | 'kind'>): string => `${KEY}${e.key}${SEP}${e.id}${SEP}${e.kind}`;

/** Users in an embedded LevelDB folder; changes run under a per-user lock. One process at a time. */
export class LevelUserStore implements UserStore {
  private readonly db: Level<string, string>;
  private readonly lease: Lease<Level<string, string>>;
  private readonly lock = new KeyLock();

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    this.lease = openLevel<string>(path, 'utf8');
    this.db = this.lease.handle;
  }

  private async write(user: UserRecord, previous: UserRecord | undefined): Promise<void> {
    if (previous && sameSearchKeys(previous, user)) return this.db.put(USER + user.id, JSON.stringify(user));
    await this.db.batch([
      ...(previous ? searchEntries(previous).map((e) => ({ type: 'del' as const, key: entryKey(e) })) : []),
      { type: 'put', key: USER + user.id, value: JSON.stringify(user) },
      ...searchEntries(user).map((e) => ({ type: 'put' as const, key: entryKey(e), value: e.other ?? '' })),
    ]);
  }

  /** @inheritdoc */
  add(user: UserRecord): Promise<boolean> {
    return this.lock.run(user.id, async () => {
      if ((await this.db.get(USER + user.id)) !== undefined) return false;
      await this.write(user, undefined);
      return true;
    });
  }

  /** @inheritdoc */
  async get(id: string): Promise<UserRecord | undefined> {
    const value = await this.db.get(USER + id);
    return value === undefined ? undefined : (JSON.parse(value) as UserRecord);
  }

  /** @inheritdoc */
  update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined> {
    return this.lock.run(id, async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, id };
      await this.write(saved, current);
      return saved;
    });
  }

  /** @inheritdoc */
  delete(id: string): Promise<boolean> {
    return this.lock.run(id, async () => {
      const current = await this.get(id);
      if (!current) return false;
      await this.db.batch([{ type: 'del', key: USER + id }, ...searchEntries(current).map((e) => ({ type: 'del' as const, key: entryKey(e) }))]);
      return true;
    });
  }

  /** @inheritdoc */
  async list(query: UserStoreQuery): Promise<UserStorePage> {
    const users: UserRecord[] = [];
    if (query.prefix === undefined) {
      const range = query.after === undefined ? { gt: USER } : { gt: USER + query.after.id };
      for await (const value of this.db.values({ ...range, lt: USER + KEY_END, limit: query.limit + 1 })) users.push(JSON.parse(value) as UserRecord);
      const page = users.slice(0, query.limit);
      return { users: page, next: users.length > query.limit ? { id: (page[page.length - 1] as UserRecord).id } : undefined };
    }
    const prefix = query.prefix;
    const after = query.after;
    const range = after === undefined ? { gte: KEY + prefix } : { gt: `${KEY}${after.key ?? ''}${SEP}${after.id}${SEP}~` };
    let lastPos: { key: string; id: string } | undefined;
    let more = false;
    for await (const [k, other] of this.db.iterator({ ...range, lt: KEY + prefix + KEY_END })) {
      const rest = k.slice(KEY.length);
      const first = rest.indexOf(SEP);
      const last = rest.lastIndexOf(SEP);
      const entry = { key: rest.slice(0, first), id: rest.slice(first + 1, last), kind: rest.slice(last + 1) as SearchKeyKind, other: other === '' ? undefined : other };
      if (!entry.key.startsWith(prefix) || !listedAt(entry, prefix)) continue;
      if (users.length === query.limit) {
        more = true;
        break;
      }
      const user = await this.get(entry.id);
      if (user) {
        users.push(user);
        lastPos = { key: entry.key, id: entry.id };
      }
    }
    return { users, next: more ? lastPos : undefined };
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
