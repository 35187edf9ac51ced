import type { Collection } from '../storage/collection';
import type { Database } from '../storage/database';
import { byUser, CREDENTIALS } from './credential-schema';
import type { Credential, CredentialStore } from './credential-store';

/** The most credentials read in one page of a user's list. */
const PAGE = 200;

/** The credential store on any database adapter: the {@link CREDENTIALS} family. */
export class CredentialRepository implements CredentialStore {
  private readonly credentials: Collection<Credential>;

  /** @param database - where the family lives; closed with the store. */
  constructor(private readonly database: Database) {
    this.credentials = database.collection(CREDENTIALS);
  }

  /** @inheritdoc */
  async add(credential: Credential): Promise<boolean> {
    return (await this.credentials.insert(credential)).inserted;
  }

  /** @inheritdoc */
  get(id: string): Promise<Credential | undefined> {
    return this.credentials.get(id);
  }

  /** @inheritdoc */
  async list(userId: string): Promise<Credential[]> {
    const all: Credential[] = [];
    let after: string | undefined;
    do {
      const page = await this.credentials.find('user', { prefix: byUser(userId), limit: PAGE, after });
      all.push(...page.docs);
      after = page.next;
    } while (after !== undefined);
    return all;
  }

  /** @inheritdoc */
  update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined> {
    // Its id and its user are what it is: a change keeps them.
    return this.credentials.update(id, (current) => {
      const userId = current.userId;
      const next = change(current);
      return next === undefined ? undefined : { ...next, id, userId };
    });
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    return (await this.credentials.delete(id)) !== undefined;
  }

  /** @inheritdoc */
  close(): Promise<void> {
    return this.database.close();
  }
}
