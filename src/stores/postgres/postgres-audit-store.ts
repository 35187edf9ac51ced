import { PostgresDatabase } from './postgres-database';
import { AuditRepository } from '../../core/audit/audit-repository';

/**
 * The audit log in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app`
 * (tables `authgate_audit_doc`, `_idx` and `_uniq`; the rows of an older version's `authgate_audit`
 * are copied once, at first use), read newest first through an index.
 */
export class PostgresAuditStore extends AuditRepository {
  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super(new PostgresDatabase(uri));
  }
}
