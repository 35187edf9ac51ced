import { uriScheme } from '../../plugin-kit/helpers';
import { openDatabase } from '../../plugin-kit/storage';
import { OrgRepository } from './org-repository';
import type { OrgStore } from './org-store';
import { MemoryOrgStore } from './stores/memory-org-store';
import { MongoOrgStore } from './stores/mongo-org-store';
import { PostgresOrgStore } from './stores/postgres-org-store';

/** The URI schemes {@link createOrgStore} accepts. */
export const ORG_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mysql://', 'sqlite://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes an organization store: `level:///path` or `sqlite:///path/file.db` (one machine); shared by
 * instances: `postgres://user@host/db?schema=app`, `mysql://user@host/db`,
 * `mongodb://host/db?org_db=&org_coll=`; `memory://` (tests: nothing survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createOrgStore(uri: string): OrgStore {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') return new MongoOrgStore(uri);
  // The classes of the older stores stay what these URIs give (apps may test for them).
  if (scheme === 'memory') return new MemoryOrgStore();
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresOrgStore(uri);
  return new OrgRepository(openDatabase(uri, 'organization'));
}
