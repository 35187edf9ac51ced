import { SlugTakenError, type OrgInvitation, type OrgRecord, type OrgStore } from '../org-store';
import { byAge, memberIds } from '../org-records';

/** Organizations in process memory: for tests and trials (nothing survives a restart). */
export class MemoryOrgStore implements OrgStore {
  private readonly orgs = new Map<string, OrgRecord>();
  private readonly slugs = new Map<string, string>();
  /** By user id: the ids of the organizations the user is a member of. */
  private readonly byUser = new Map<string, Set<string>>();
  private readonly pending = new Map<string, OrgInvitation>();

  private index(org: OrgRecord, on: boolean): void {
    for (const userId of memberIds(org)) {
      const set = this.byUser.get(userId) ?? new Set();
      if (on) set.add(org.id);
      else set.delete(org.id);
      if (set.size === 0) this.byUser.delete(userId);
      else this.byUser.set(userId, set);
    }
  }

  /** @inheritdoc */
  async add(org: OrgRecord): Promise<boolean> {
    if (this.orgs.has(org.id) || this.slugs.has(org.slug)) return false;
    this.orgs.set(org.id, structuredClone(org));
    this.slugs.set(org.slug, org.id);
    this.index(org, true);
    return true;
  }

  /** @inheritdoc */
  async get(id: string): Promise<OrgRecord | undefined> {
    const found = this.orgs.get(id);
    return found && structuredClone(found);
  }

  /** @inheritdoc */
  async bySlug(slug: string): Promise<OrgRecord | undefined> {
    const id = this.slugs.get(slug);
    return id === undefined ? undefined : this.get(id);
  }

  /** @inheritdoc */
  async update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined> {
    const current = this.orgs.get(id);
    if (!current) return undefined;
    const next = change(structuredClone(current));
    if (!next) return structuredClone(current);
    const saved = structuredClone({ ...next, id });
    if (saved.slug !== current.slug && this.slugs.has(saved.slug)) throw new SlugTakenError();
    this.index(current, false);
    this.slugs.delete(current.slug);
    this.orgs.set(id, saved);
    this.slugs.set(saved.slug, id);
    this.index(saved, true);
    return structuredClone(saved);
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    const current = this.orgs.get(id);
    if (!current) return false;
    this.index(current, false);
    this.slugs.delete(current.slug);
    this.orgs.delete(id);
    for (const [key, inv] of this.pending) if (inv.orgId === id) this.pending.delete(key);
    return true;
  }

  /** @inheritdoc */
  async ofUser(userId: string): Promise<OrgRecord[]> {
    const ids = [...(this.byUser.get(userId) ?? [])];
    return ids.map((id) => structuredClone(this.orgs.get(id) as OrgRecord)).sort(byAge);
  }

  /** @inheritdoc */
  async addInvitation(invitation: OrgInvitation): Promise<void> {
    this.pending.set(invitation.id, structuredClone(invitation));
  }

  /** @inheritdoc */
  async invitations(orgId: string): Promise<OrgInvitation[]> {
    return [...this.pending.values()]
      .filter((inv) => inv.orgId === orgId)
      .sort(byAge)
      .map((inv) => structuredClone(inv));
  }

  /** @inheritdoc */
  async takeInvitation(id: string): Promise<OrgInvitation | undefined> {
    const found = this.pending.get(id);
    this.pending.delete(id);
    return found;
  }

  /** @inheritdoc */
  async deleteInvitation(id: string): Promise<boolean> {
    return this.pending.delete(id);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    this.orgs.clear();
    this.slugs.clear();
    this.byUser.clear();
    this.pending.clear();
  }
}
