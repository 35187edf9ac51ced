import { parseMongoUri } from '../../internal/mongo-uri';
import { MongoDatabase } from './mongo-database';
import { UserRepository } from '../../core/users/user-repository';

/**
 * The user directory in MongoDB, shared by every instance: `mongodb://host/db` (collections
 * `authgate_users`, `_idx`, `_uniq`; the documents of an older version's `users` collection are
 * copied once, at first use). `user_db` still names the database.
 */
export class MongoUserStore extends UserRepository {
  /** @param uri - `mongodb://...`, optionally with `user_db`. */
  constructor(uri: string) {
    super(new MongoDatabase(uri, { db: parseMongoUri(uri, 'user', 'users').db }));
  }
}
