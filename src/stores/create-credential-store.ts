import { uriScheme } from '../internal/store-uri';
import { openDatabase } from './open-database';
import { CredentialRepository } from '../core/credentials/credential-repository';
import type { CredentialStore } from '../core/credentials/credential-store';
import { MemoryCredentialStore } from './memory/memory-credential-store';
import { MongoCredentialStore } from './mongo/mongo-credential-store';
import { PostgresCredentialStore } from './postgres/postgres-credential-store';

/** The URI schemes {@link createCredentialStore} accepts. */
export const CREDENTIAL_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mysql://', 'sqlite://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes a credential store (passkeys, second factors, API keys): `level:///path` or
 * `sqlite:///path/file.db` (one machine); shared by instances: `postgres://user@host/db?schema=app`,
 * `mysql://user@host/db`, `mongodb://host/db?cred_db=&cred_coll=`; `memory://` (tests: nothing
 * survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createCredentialStore(uri: string): CredentialStore {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  if (scheme === 'mongodb' || scheme === 'mongodb+srv') return new MongoCredentialStore(uri);
  // The classes of the older stores stay what these URIs give (apps may test for them).
  if (scheme === 'memory') return new MemoryCredentialStore();
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresCredentialStore(uri);
  return new CredentialRepository(openDatabase(uri, 'credential'));
}
