import { storeForUri, uriPath } from '../internal/store-uri';
import type { CredentialStore } from './credential-store';
import { LevelCredentialStore } from './stores/level-credential-store';
import { MemoryCredentialStore } from './stores/memory-credential-store';
import { MongoCredentialStore } from './stores/mongo-credential-store';
import { PostgresCredentialStore } from './stores/postgres-credential-store';

/** The URI schemes {@link createCredentialStore} accepts. */
export const CREDENTIAL_STORE_SCHEMES = ['level://', 'postgres://', 'postgresql://', 'mongodb://', 'mongodb+srv://', 'memory://'] as const;

/**
 * Makes a credential store (passkeys, second factors): `level:///path` (embedded); shared by
 * instances: `postgres://user@host/db?schema=app`, `mongodb://host/db?cred_db=&cred_coll=`;
 * `memory://` (tests: nothing survives a restart).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createCredentialStore(uri: string): CredentialStore {
  const postgres = (): CredentialStore => new PostgresCredentialStore(uri);
  const mongo = (): CredentialStore => new MongoCredentialStore(uri);
  return storeForUri('credential', uri, CREDENTIAL_STORE_SCHEMES, {
    memory: () => new MemoryCredentialStore(),
    level: () => new LevelCredentialStore(uriPath(uri, 'level:///var/lib/app/credentials')),
    postgres,
    postgresql: postgres,
    mongodb: mongo,
    'mongodb+srv': mongo,
  });
}
