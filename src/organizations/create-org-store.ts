import { storeForUri, uriPath } from '../internal/store-uri';
import type { OrgStore } from './org-store';
import { LevelOrgStore } from './stores/level-org-store';
import { MemoryOrgStore } from './stores/memory-org-store';
import { MongoOrgStore } from './stores/mongo-org-store';
import { PostgresOrgStore } from './stores/postgres-org-store';

/** The URI schemes {@link createOrgStore} accepts. */
export const ORG_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes an organization store: `level:///path` (embedded); shared by instances:
 * `postgres://user@host/db?schema=app`, `mongodb://host/db?org_db=&org_coll=`; `memory://`
 * (tests: nothing survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createOrgStore(uri: string): OrgStore {
  const postgres = (): OrgStore => new PostgresOrgStore(uri);
  const mongo = (): OrgStore => new MongoOrgStore(uri);
  return storeForUri('organization', uri, ORG_STORE_SCHEMES, {
    memory: () => new MemoryOrgStore(),
    level: () => new LevelOrgStore(uriPath(uri, 'level:///var/lib/app/orgs')),
    postgres,
    postgresql: postgres,
    mongodb: mongo,
    'mongodb+srv': mongo,
  });
}
