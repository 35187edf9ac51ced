import { BY_ID, encodeCursor } from '../storage/collection';
import type { Database } from '../storage/database';
import { Repository } from '../storage/repository';
import { searchKey } from './search-keys';
import { USERS } from './user-schema';
import type { UserListPosition, UserRecord, UserStore, UserStorePage, UserStoreQuery } from './user-store';

/** Whether a user found at search value `value` is listed there: one whose name and e-mail both match is listed once, at its name. */
function listedAt(user: UserRecord, value: string, prefix: string): boolean {
  const name = searchKey(user.name);
  return value === name || name === undefined || !name.startsWith(prefix);
}

/** The user directory's store on any database adapter: the {@link USERS} family, its lists index-backed. */
export class UserRepository extends Repository<UserRecord> implements UserStore {
  /** @param database - where the family lives; closed with the store. */
  constructor(database: Database) {
    super(database, USERS);
  }

  /** @inheritdoc */
  update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined> {
    return this.docs.update(id, (current) => {
      const next = change(current);
      return next === undefined ? undefined : { ...next, id };
    });
  }

  /** @inheritdoc */
  async list(query: UserStoreQuery): Promise<UserStorePage> {
    if (query.prefix === undefined) {
      const page = await this.docs.find(BY_ID, { prefix: '', limit: query.limit, after: query.after && encodeCursor(query.after.id, query.after.id) });
      const last = page.docs.at(-1);
      return { users: page.docs, next: page.next !== undefined && last ? { id: last.id } : undefined };
    }
    const prefix = query.prefix;
    const users: UserRecord[] = [];
    let listedLast: UserListPosition | undefined;
    let readFrom: UserListPosition | undefined = query.after;
    // A user listed at its name is skipped at its e-mail: pages are read until this one is full and one more is known to follow.
    for (;;) {
      const page = await this.docs.find('search', { prefix, limit: query.limit + 1, after: readFrom && encodeCursor(readFrom.key ?? '', readFrom.id) });
      for (let i = 0; i < page.docs.length; i++) {
        const user = page.docs[i] as UserRecord;
        const at: UserListPosition = { key: page.values[i] as string, id: user.id };
        if (!listedAt(user, at.key as string, prefix)) continue;
        if (users.length === query.limit) return { users, next: listedLast };
        users.push(user);
        listedLast = at;
      }
      const last = page.docs.length - 1;
      if (page.next === undefined || last < 0) return { users, next: undefined };
      readFrom = { key: page.values[last] as string, id: (page.docs[last] as UserRecord).id };
    }
  }
}
