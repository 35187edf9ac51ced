import { allDocs, type Database, Repository, type Collection } from '../../plugin-kit/storage';
import { ResourceRepository } from './resource-repository';
import { SCIM_GROUPS, SCIM_SETTINGS, type ScimGroup, type ScimSettings } from './group-schema';
import { SCIM_USERS, type ScimUser } from './user-schema';
import { SCIM_TOKENS, type ScimToken } from './token-schema';

/** The most SCIM tokens an organization holds at once (rotation needs two). */
export const MAX_TOKENS_PER_ORG = 5;

/** Where the SCIM plugin keeps its tokens, on the app's database. */
export class ScimRepository extends Repository<ScimToken> {
  /** The people the organizations' directories provisioned, on the same database (closed with it). */
  readonly users: ResourceRepository<ScimUser>;
  /** The organizations' directory groups. */
  readonly groups: ResourceRepository<ScimGroup>;
  /** Each organization's mapping of groups to roles. */
  readonly settings: Collection<ScimSettings>;

  /** @param database - where the families live. */
  constructor(database: Database) {
    super(database, SCIM_TOKENS);
    this.users = new ResourceRepository(database, SCIM_USERS, ['user_name']);
    this.groups = new ResourceRepository(database, SCIM_GROUPS, ['display_name']);
    this.settings = database.collection(SCIM_SETTINGS);
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
