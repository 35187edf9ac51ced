import { storeForUri, uriPath } from '../internal/store-uri';
import type { AuditStore } from './audit-store';
import { LevelAuditStore } from './stores/level-audit-store';
import { MemoryAuditStore } from './stores/memory-audit-store';
import { MongoAuditStore } from './stores/mongo-audit-store';
import { PostgresAuditStore } from './stores/postgres-audit-store';

/** The URI schemes {@link createAuditStore} accepts. */
export const AUDIT_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes an audit log: `level:///path` (embedded); shared by instances:
 * `postgres://user@host/db?schema=app`, `mongodb://host/db?audit_db=&audit_coll=`; `memory://`
 * (the newest 100,000 events, nothing survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createAuditStore(uri: string): AuditStore {
  const postgres = (): AuditStore => new PostgresAuditStore(uri);
  const mongo = (): AuditStore => new MongoAuditStore(uri);
  return storeForUri('audit', uri, AUDIT_STORE_SCHEMES, {
    memory: () => new MemoryAuditStore(),
    level: () => new LevelAuditStore(uriPath(uri, 'level:///var/lib/app/audit')),
    postgres,
    postgresql: postgres,
    mongodb: mongo,
    'mongodb+srv': mongo,
  });
}
