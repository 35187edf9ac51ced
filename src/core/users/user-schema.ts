import { fromMongoRecord, type Schema } from '../storage/collection';
import { searchKey } from './search-keys';
import type { UserRecord } from './user-store';

/** The user directory's family: by id (the list in id order reads the documents themselves); by the search form of its name and e-mail (`search`). */
export const USERS: Schema<UserRecord> = {
  family: 'users',
  id: (u) => u.id,
  indexes: [{ name: 'search', values: (u) => [searchKey(u.name), searchKey(u.email)].filter((k): k is string => k !== undefined) }],
  // What the stores of before 2026-11-27 kept: table authgate_users (column doc), level keys user!<id>.
  legacy: { sqlTable: 'users', levelPrefix: 'user!', mongoCollection: 'users', mongoDoc: fromMongoRecord('id') },
};
