import { storeFor } from './adapters';
import { AuditRepository } from '../core/audit/audit-repository';
import type { AuditStore } from '../core/audit/audit-store';

/** The URI schemes {@link createAuditStore} accepts. */
export const AUDIT_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mysql://', 'sqlite://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes an audit log: `level:///path` or `sqlite:///path/file.db` (one machine); shared by
 * instances: `postgres://user@host/db?schema=app`, `mysql://user@host/db`,
 * `mongodb://host/db?audit_db=&audit_coll=`; `memory://` (the newest 100,000 events, nothing
 * survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createAuditStore(uri: string): AuditStore {
  // Memory keeps its bound (the newest events); the classes of the older stores stay what their URIs give.
  return storeFor('audit', uri, 'audit', AUDIT_STORE_SCHEMES, (database) => new AuditRepository(database));
}
