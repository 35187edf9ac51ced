import { allDocs, indexOf } from '../../core/storage/collection';
import type { Database } from '../../core/storage/database';
import { Repository } from '../../core/storage/repository';
import { inOrg, SCIM_USERS, type ScimUser } from './user-schema';

/** Where the SCIM plugin keeps the people each organization's directory provisioned (part of the SCIM store, which closes the database). */
export class ScimUserRepository extends Repository<ScimUser> {
  /** @param database - where the family lives. */
  constructor(database: Database) {
    super(database, SCIM_USERS);
  }

  /** The organization's user whose value in a unique index (`user_name` lower-case, `external_id`, `user`) is `value`. */
  async byUnique(orgId: string, index: 'user_name' | 'external_id' | 'user', value: string): Promise<ScimUser | undefined> {
    const key = inOrg(orgId, index === 'user_name' ? value.toLowerCase() : value);
    // A prefix finds `alice` and `alicex` alike: only the exact value counts.
    const spec = indexOf(SCIM_USERS, index);
    return (await this.docs.find(index, { prefix: key, limit: 20 })).docs.find((u) => spec.values(u).includes(key));
  }

  /** Every user of the organization, in SCIM id order. */
  ofOrg(orgId: string): Promise<ScimUser[]> {
    return allDocs(this.docs, 'org', inOrg(orgId, ''));
  }

  /** How many users the organization has. */
  countOf(orgId: string): Promise<number> {
    return this.docs.count('org', inOrg(orgId, ''));
  }

  /** Changes a user atomically; the stored user after, `undefined` when it is gone. */
  update(id: string, change: (user: ScimUser) => ScimUser | undefined): Promise<ScimUser | undefined> {
    return this.docs.update(id, change);
  }

  /** Adds a user; the unique index it collides on, if one. */
  async insert(user: ScimUser): Promise<string | undefined> {
    const result = await this.docs.insert(user);
    return result.inserted ? undefined : result.taken;
  }
}
