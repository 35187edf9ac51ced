import { AuthError } from '../errors';
import { uriPath, uriScheme } from '../internal/store-uri';
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
  switch (typeof uri === 'string' ? uriScheme(uri) : undefined) {
    case 'memory':
      return new MemoryCredentialStore();
    case 'level':
      return new LevelCredentialStore(uriPath(uri, 'level:///var/lib/app/credentials'));
    case 'postgres':
    case 'postgresql':
      return new PostgresCredentialStore(uri);
    case 'mongodb':
    case 'mongodb+srv':
      return new MongoCredentialStore(uri);
    default:
      throw new AuthError('config', `authgate: unsupported credential store URI ${JSON.stringify(String(uri).slice(0, 80))}; use one of ${CREDENTIAL_STORE_SCHEMES.join(', ')}`);
  }
}
