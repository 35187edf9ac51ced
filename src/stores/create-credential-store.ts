import { storeFor } from './adapters';
import { CredentialRepository } from '../core/credentials/credential-repository';
import type { CredentialStore } from '../core/credentials/credential-store';

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
  // The classes of the older stores stay what their URIs give (apps may test for them).
  return storeFor('credentials', uri, 'credential', CREDENTIAL_STORE_SCHEMES, (database) => new CredentialRepository(database));
}
