import { allDocs } from '../../core/storage/collection';
import type { Database } from '../../core/storage/database';
import { Repository } from '../../core/storage/repository';
import { SCIM_TOKENS, type ScimToken } from './token-schema';

/** The most SCIM tokens an organization holds at once (rotation needs two). */
export const MAX_TOKENS_PER_ORG = 5;

/** Where the SCIM plugin keeps its tokens, on the app's database. */
export class ScimRepository extends Repository<ScimToken> {
  /** @param database - where the family lives. */
  constructor(database: Database) {
    super(database, SCIM_TOKENS);
  }

  /** The organization's tokens. */
  async ofOrg(orgId: string): Promise<ScimToken[]> {
    return (await this.docs.find('org', { prefix: `${orgId}\u0000`, limit: MAX_TOKENS_PER_ORG + 1 })).docs;
  }

  /** The tokens a user made. */
  byAuthor(userId: string): Promise<ScimToken[]> {
    return allDocs(this.docs, 'author', `${userId}\u0000`);
  }
}
