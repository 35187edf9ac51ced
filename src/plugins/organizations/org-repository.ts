import { allDocs, UniqueTakenError, type Collection } from '../../core/storage/collection';
import type { Database } from '../../core/storage/database';
import { Repository } from '../../core/storage/repository';
import { ofMember, ofOrg, ORG_INVITATIONS, ORGS } from './org-schema';
import { SlugTakenError, type OrgInvitation, type OrgRecord, type OrgStore } from './org-store';

/** The organization store on any database adapter: the {@link ORGS} and {@link ORG_INVITATIONS} families. */
export class OrgRepository extends Repository<OrgRecord> implements OrgStore {
  private readonly invites: Collection<OrgInvitation>;

  /** @param database - where the families live; closed with the store. */
  constructor(database: Database) {
    super(database, ORGS);
    this.invites = database.collection(ORG_INVITATIONS);
  }

  /** @inheritdoc */
  async bySlug(slug: string): Promise<OrgRecord | undefined> {
    return (await this.docs.find('slug', { prefix: slug, limit: 2 })).docs.find((o) => o.slug === slug);
  }

  /** @inheritdoc */
  async update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined> {
    try {
      return await this.docs.update(id, (current) => {
        const next = change(current);
        return next === undefined ? undefined : { ...next, id };
      });
    } catch (err) {
      if (err instanceof UniqueTakenError) throw new SlugTakenError();
      throw err;
    }
  }

  /** @inheritdoc */
  override async delete(id: string): Promise<boolean> {
    if (!(await super.delete(id))) return false;
    for (const inv of await this.invitations(id)) await this.invites.delete(inv.id);
    return true;
  }

  /** @inheritdoc */
  async list(query: { cursor?: string | undefined; limit: number }): Promise<{ orgs: OrgRecord[]; next?: string | undefined }> {
    const page = await this.docs.find('slug', { prefix: '', after: query.cursor, limit: query.limit });
    return { orgs: page.docs, next: page.next };
  }

  /** @inheritdoc */
  ofUser(userId: string): Promise<OrgRecord[]> {
    return allDocs(this.docs, 'member', ofMember(userId));
  }

  /** @inheritdoc */
  async addInvitation(invitation: OrgInvitation): Promise<void> {
    await this.invites.insert(invitation);
  }

  /** @inheritdoc */
  invitations(orgId: string): Promise<OrgInvitation[]> {
    return allDocs(this.invites, 'org', ofOrg(orgId));
  }

  /** @inheritdoc */
  takeInvitation(id: string): Promise<OrgInvitation | undefined> {
    return this.invites.delete(id);
  }

  /** @inheritdoc */
  async deleteInvitation(id: string): Promise<boolean> {
    return (await this.invites.delete(id)) !== undefined;
  }
}
