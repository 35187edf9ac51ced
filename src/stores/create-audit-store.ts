import { uriPath, uriScheme } from '../internal/store-uri';
import { openDatabase } from './open-database';
import { AuditRepository } from '../core/audit/audit-repository';
import type { AuditStore } from '../core/audit/audit-store';
import { LevelAuditStore } from './level/level-audit-store';
import { MemoryAuditStore } from './memory/memory-audit-store';
import { MongoAuditStore } from './mongo/mongo-audit-store';
import { PostgresAuditStore } from './postgres/postgres-audit-store';

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
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') return new MongoAuditStore(uri);
  // Memory keeps its bound (the newest events); the classes of the older stores stay what these URIs give.
  if (scheme === 'memory') return new MemoryAuditStore();
  if (scheme === 'level') return new LevelAuditStore(uriPath(uri, 'level:///var/lib/app/audit'));
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresAuditStore(uri);
  return new AuditRepository(openDatabase(uri, 'audit'));
}
