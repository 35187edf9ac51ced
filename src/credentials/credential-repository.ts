import type { Database } from '../storage/database';
import { Repository } from '../storage/repository';
import { byUser, CREDENTIALS } from './credential-schema';
import type { Credential, CredentialStore } from './credential-store';

/** The most credentials read in one page of a user's list. */
const PAGE = 200;

/** The credential store on any database adapter: the {@link CREDENTIALS} family. */
export class CredentialRepository extends Repository<Credential> implements CredentialStore {
  /** @param database - where the family lives; closed with the store. */
  constructor(database: Database) {
    super(database, CREDENTIALS);
  }

  /** @inheritdoc */
  async list(userId: string): Promise<Credential[]> {
    const all: Credential[] = [];
    let after: string | undefined;
    do {
      const page = await this.docs.find('user', { prefix: byUser(userId), limit: PAGE, after });
      all.push(...page.docs);
      after = page.next;
    } while (after !== undefined);
    return all;
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
