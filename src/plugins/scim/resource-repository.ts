import { allDocs, indexOf, MAX_PAGE, UniqueTakenError, type Schema, type Database, Repository } from '../../plugin-kit/storage';
import { ScimError } from './scim-errors';
import { inOrg } from './user-schema';

/** What every SCIM resource has: its SCIM id, its organization and a version. */
export interface OrgResource {
  id: string;
  orgId: string;
  version: number;
}

/**
 * One SCIM resource type's records (users, groups), each of one organization: looked up by a
 * unique value within the organization, listed per organization, changed by version.
 */
export class ResourceRepository<T extends OrgResource> extends Repository<T> {
  /**
   * @param database - where the family lives (the SCIM store closes it).
   * @param schema - the family; its `org` index lists an organization's records.
   * @param caseless - unique indexes whose values are kept lower-case (`userName`, `displayName`).
   */
  constructor(
    database: Database,
    private readonly schema: Schema<T>,
    private readonly caseless: readonly string[],
  ) {
    super(database, schema);
  }

  /** The organization's record whose value in unique index `index` is `value`. */
  async byUnique(orgId: string, index: string, value: string): Promise<T | undefined> {
    const key = inOrg(orgId, this.caseless.includes(index) ? value.toLowerCase() : value);
    // A prefix finds `alice` and `alicex` alike: only the exact value counts.
    const spec = indexOf(this.schema, index);
    return (await this.docs.find(index, { prefix: key, limit: 20 })).docs.find((doc) => spec.values(doc).includes(key));
  }

  /** Every record of the organization, in SCIM id order. */
  ofOrg(orgId: string): Promise<T[]> {
    return allDocs(this.docs, 'org', inOrg(orgId, ''));
  }

  /** `count` records of the organization from the 1-based `startIndex`, in SCIM id order (reads `startIndex - 1 + count` index entries). */
  async pageOf(orgId: string, startIndex: number, count: number): Promise<T[]> {
    let skip = startIndex - 1;
    let after: string | undefined;
    const found: T[] = [];
    while (found.length < count) {
      const page = await this.docs.find('org', { prefix: inOrg(orgId, ''), after, limit: Math.min(MAX_PAGE, skip + count - found.length) });
      const docs = page.docs.slice(Math.min(skip, page.docs.length));
      skip -= Math.min(skip, page.docs.length);
      found.push(...docs.slice(0, count - found.length));
      if (page.next === undefined) break;
      after = page.next;
    }
    return found;
  }

  /** How many records the organization has. */
  countOf(orgId: string): Promise<number> {
    return this.docs.count('org', inOrg(orgId, ''));
  }

  /** Adds a record; a 409 `uniqueness` SCIM error naming the attribute when a unique value is taken. */
  async insert(doc: T, attributeOf: (index: string) => string): Promise<void> {
    const result = await this.docs.insert(doc);
    if (!result.inserted) throw taken(result.taken === 'id' ? 'id' : attributeOf(result.taken));
  }

  /**
   * Replaces the record of version `version` with `next(current)`; `'stale'` when another change
   * landed first, `undefined` when it is gone, a 409 `uniqueness` when a unique value is taken.
   */
  async change(id: string, version: number, next: (current: T) => T, attributeOf: (index: string) => string): Promise<T | 'stale' | undefined> {
    const seen = { stale: false };
    try {
      const after = await this.docs.update(id, (current) => {
        seen.stale = current.version !== version;
        return seen.stale ? undefined : next(current);
      });
      return after === undefined ? undefined : seen.stale ? 'stale' : after;
    } catch (err) {
      if (err instanceof UniqueTakenError) throw taken(attributeOf(err.index));
      throw err;
    }
  }
}

const taken = (attribute: string): ScimError => new ScimError(409, `${attribute} is taken in this organization`, 'uniqueness');
