import { LevelDatabase } from './level-database';
import { CredentialRepository } from '../../core/credentials/credential-repository';

/** Credentials in an embedded LevelDB folder (one process at a time); what an older version kept there is read on first use. */
export class LevelCredentialStore extends CredentialRepository {
  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super(new LevelDatabase(`level://${path}`));
  }
}
