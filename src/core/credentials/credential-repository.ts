import { allDocs } from '../storage/collection';
import type { Database } from '../storage/database';
import { Repository } from '../storage/repository';
import { byUser, CREDENTIALS } from './credential-schema';
import type { Credential, CredentialStore } from './credential-store';

/** The credential store on any database adapter: the {@link CREDENTIALS} family. */
export class CredentialRepository extends Repository<Credential> implements CredentialStore {
  /** @param database - where the family lives; closed with the store. */
  constructor(database: Database) {
    super(database, CREDENTIALS);
  }

  /** @inheritdoc */
  list(userId: string): Promise<Credential[]> {
    return allDocs(this.docs, 'user', byUser(userId));
  }

  /** @inheritdoc */
  update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined> {
    // Its id and its user are what it is: a change keeps them.
    return this.docs.update(id, (current) => {
      const userId = current.userId;
      const next = change(current);
      return next === undefined ? undefined : { ...next, id, userId };
    });
  }
}
