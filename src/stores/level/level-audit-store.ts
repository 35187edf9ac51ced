import { LevelDatabase } from './level-database';
import { AuditRepository } from '../../core/audit/audit-repository';

/** The audit log in an embedded LevelDB folder (one process); what an older version kept there is copied on first use. */
export class LevelAuditStore extends AuditRepository {
  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super(new LevelDatabase(`level://${path}`));
  }
}
