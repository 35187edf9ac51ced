import { parseMongoUri } from '../../internal/mongo-uri';
import { MongoDatabase } from './mongo-database';
import { AuditRepository } from '../../core/audit/audit-repository';

/**
 * The audit log in MongoDB, shared by every instance: `mongodb://host/db` (collections
 * `authgate_audit`, `_idx`, `_uniq`; an older version's `audit` collection is copied once, at first
 * use), read newest first. `audit_db` still names the database.
 */
export class MongoAuditStore extends AuditRepository {
  /** @param uri - `mongodb://...`, optionally with `audit_db`. */
  constructor(uri: string) {
    super(new MongoDatabase(uri, { db: parseMongoUri(uri, 'audit', 'audit').db }));
  }
}
