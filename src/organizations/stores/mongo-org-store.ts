import type { Collection, MongoClient } from 'mongodb';
import { acquireMongoClient, isDuplicateKey, parseMongoUri } from '../../internal/mongo-uri';
import type { Lease } from '../../internal/shared-handles';
import { SlugTakenError, type OrgInvitation, type OrgRecord, type OrgStore } from '../org-store';

type OrgDoc = Omit<OrgRecord, 'id'> & { _id: string; _v: number };
type InvitationDoc = Omit<OrgInvitation, 'id'> & { _id: string };

const UPDATE_ATTEMPTS = 8;

function toOrg(doc: OrgDoc | null): OrgRecord | undefined {
  if (!doc) return undefined;
  const { _id, _v: _version, ...rest } = doc;
  return { ...rest, id: _id };
}

function toInvitation(doc: InvitationDoc | null): OrgInvitation | undefined {
  if (!doc) return undefined;
  const { _id, ...rest } = doc;
  return { ...rest, id: _id };
}

/**
 * Organizations in MongoDB, shared by every instance: `mongodb://host/db?org_db=&org_coll=`
 * (collection `orgs`, one document per organization with its members, and `<coll>_invitations`).
 * Updates are optimistic (a version field, retried); slugs have a unique index, members a
 * multikey index; taking an invitation is one `findOneAndDelete`.
 */
export class MongoOrgStore implements OrgStore {
  private readonly lease: Lease<MongoClient>;
  private readonly orgs: Collection<OrgDoc>;
  private readonly invites: Collection<InvitationDoc>;
  private indexed: Promise<unknown> | undefined;

  /** @param uri - `mongodb://...` with optional `org_db` and `org_coll`. */
  constructor(uri: string) {
    const target = parseMongoUri(uri, 'org', 'orgs');
    this.lease = acquireMongoClient(target.clientUri);
    const db = this.lease.handle.db(target.db);
    this.orgs = db.collection<OrgDoc>(target.coll);
    this.invites = db.collection<InvitationDoc>(`${target.coll}_invitations`);
  }

  private ready(): Promise<unknown> {
    this.indexed ??= Promise.all([
      this.orgs.createIndex({ slug: 1 }, { unique: true }),
      this.orgs.createIndex({ 'members.userId': 1, created: 1 }),
      this.invites.createIndex({ orgId: 1, created: 1 }),
    ]).catch((err: unknown) => {
      this.indexed = undefined;
      throw err;
    });
    return this.indexed;
  }

  /** @inheritdoc */
  async add(org: OrgRecord): Promise<boolean> {
    await this.ready();
    const { id, ...rest } = org;
    try {
      await this.orgs.insertOne({ ...rest, _id: id, _v: 0 });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** @inheritdoc */
  async get(id: string): Promise<OrgRecord | undefined> {
    await this.ready();
    return toOrg(await this.orgs.findOne({ _id: id }));
  }

  /** @inheritdoc */
  async bySlug(slug: string): Promise<OrgRecord | undefined> {
    await this.ready();
    return toOrg(await this.orgs.findOne({ slug }));
  }

  /** @inheritdoc */
  async update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined> {
    await this.ready();
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const doc = await this.orgs.findOne({ _id: id });
      const current = toOrg(doc);
      if (!doc || !current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, id };
      const { id: _id, ...rest } = saved;
      try {
        const result = await this.orgs.replaceOne({ _id: id, _v: doc._v }, { ...rest, _v: doc._v + 1 });
        if (result.modifiedCount === 1) return saved;
      } catch (err) {
        if (isDuplicateKey(err)) throw new SlugTakenError();
        throw err;
      }
    }
    throw new Error('organization update kept conflicting');
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    const deleted = (await this.orgs.deleteOne({ _id: id })).deletedCount === 1;
    await this.invites.deleteMany({ orgId: id });
    return deleted;
  }

  /** @inheritdoc */
  async ofUser(userId: string): Promise<OrgRecord[]> {
    await this.ready();
    const docs = await this.orgs.find({ 'members.userId': userId }).sort({ created: 1, _id: 1 }).toArray();
    return docs.map((d) => toOrg(d) as OrgRecord);
  }

  /** @inheritdoc */
  async addInvitation(invitation: OrgInvitation): Promise<void> {
    await this.ready();
    const { id, ...rest } = invitation;
    await this.invites.replaceOne({ _id: id }, rest, { upsert: true });
  }

  /** @inheritdoc */
  async invitations(orgId: string): Promise<OrgInvitation[]> {
    await this.ready();
    const docs = await this.invites.find({ orgId }).sort({ created: 1, _id: 1 }).toArray();
    return docs.map((d) => toInvitation(d) as OrgInvitation);
  }

  /** @inheritdoc */
  async takeInvitation(id: string): Promise<OrgInvitation | undefined> {
    await this.ready();
    return toInvitation(await this.invites.findOneAndDelete({ _id: id }));
  }

  /** @inheritdoc */
  async deleteInvitation(id: string): Promise<boolean> {
    return (await this.takeInvitation(id)) !== undefined;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
