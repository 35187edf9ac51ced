import { parseMongoUri } from '../../internal/mongo-uri';
import { MongoDatabase } from './mongo-database';
import { CredentialRepository } from '../../core/credentials/credential-repository';

/**
 * Credentials in MongoDB, shared by every instance: `mongodb://host/db` (collections
 * `authgate_credentials`, `_idx`, `_uniq`; the documents of an older version's `credentials`
 * collection are copied once, at first use). `cred_db` still names the database.
 */
export class MongoCredentialStore extends CredentialRepository {
  /** @param uri - `mongodb://...`, optionally with `cred_db`. */
  constructor(uri: string) {
    super(new MongoDatabase(uri, { db: parseMongoUri(uri, 'cred', 'credentials').db }));
  }
}
