import { PostgresDatabase } from './postgres-database';
import { CredentialRepository } from '../../core/credentials/credential-repository';

/**
 * Credentials in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (tables
 * `authgate_credentials_doc`, `_idx`, `_uniq`; the rows of an older version's `authgate_credentials`
 * are copied once, at first use). An update locks the row (`FOR UPDATE`).
 */
export class PostgresCredentialStore extends CredentialRepository {
  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super(new PostgresDatabase(uri));
  }
}
