import { PostgresDatabase } from './postgres-database';
import { UserRepository } from '../../core/users/user-repository';

/**
 * Users in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (tables
 * `authgate_users_doc`, `_idx`, `_uniq`, the lists by id and by name or e-mail prefix read from
 * the index table in byte order; the rows of an older version's `authgate_users` are copied once,
 * at first use). An update locks the row.
 */
export class PostgresUserStore extends UserRepository {
  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super(new PostgresDatabase(uri));
  }
}
