import { allDocs, UniqueTakenError, type Collection, type Database, Repository } from '../../plugin-kit/storage';
import { memberId, ofMember, ofOrg, ofOrgPart, ORG_INVITATIONS, ORG_MEMBERS, ORGS, type OrgWithMembers } from './org-schema';
import { SlugTakenError, type MemberPage, type MemberQuery, type OrgInvitation, type OrgMember, type OrgRecord, type OrgStore } from './org-store';
import { OWNER } from './roles';
import { recordRoles } from './member-writes';
import { randomBytes } from 'node:crypto';

/** How many organizations of the older form one step of the upgrade moves. */
const UPGRADE_PAGE = 50;
/** How long an instance's claim on an organization it moves holds, ms: then another may take it over. */
export const MOVE_CLAIM_MS = 5 * 60_000;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The organization store on any database adapter: the {@link ORGS}, {@link ORG_MEMBERS} and {@link ORG_INVITATIONS} families. */
export class OrgRepository extends Repository<OrgRecord> implements OrgStore {
  private readonly invites: Collection<OrgInvitation>;
  private readonly memberDocs: Collection<OrgMember>;
  private upgraded: Promise<void> | undefined;

  /** @param database - where the families live; closed with the store. */
  constructor(database: Database) {
    super(database, ORGS);
    this.invites = database.collection(ORG_INVITATIONS);
    this.memberDocs = database.collection(ORG_MEMBERS);
  }

  /**
   * Moves the members of organizations of before 2026-11-29 (kept inside them) to their own
   * records, before anything is read. One instance moves each organization: it claims it (an
   * atomic update marks it), writes the records (`owner` goes to the organization's list), then the
   * organization loses its list. Others wait meanwhile; a claim left by a stopped process is taken
   * over after {@link MOVE_CLAIM_MS}, and the records already written are kept.
   */
  private ready(): Promise<void> {
    this.upgraded ??= this.moveMembers().catch((err: unknown) => {
      this.upgraded = undefined;
      throw err;
    });
    return this.upgraded;
  }

  private async moveMembers(): Promise<void> {
    const mine = randomBytes(9).toString('base64url');
    for (;;) {
      const page = await this.docs.find('member', { prefix: '', limit: UPGRADE_PAGE });
      if (page.docs.length === 0) return;
      let moved = 0;
      for (const { id } of page.docs) {
        let claimed: OrgWithMembers | undefined;
        await this.docs.update(id, (current) => {
          const older = current as OrgWithMembers;
          claimed = undefined;
          if (older.members === undefined || (older.moving !== undefined && older.moving.by !== mine && older.moving.until > Date.now())) return undefined;
          claimed = { ...older, moving: { by: mine, until: Date.now() + MOVE_CLAIM_MS } };
          return claimed;
        });
        if (claimed === undefined) continue;
        const members = claimed.members ?? [];
        for (const m of members) await this.memberDocs.insert({ ...m, orgId: id, roles: recordRoles(m.roles) });
        await this.docs.update(id, (current) => {
          const { members: _members, moving, ...rest } = current as OrgWithMembers;
          if (moving?.by !== mine) return undefined;
          return { ...rest, owners: members.filter((m) => m.roles.includes(OWNER)).map((m) => m.userId) };
        });
        moved++;
      }
      // What is left is being moved by another instance: its end is waited for.
      if (moved === 0) await pause(100);
    }
  }

  /** @inheritdoc */
  override async add(org: OrgRecord): Promise<boolean> {
    await this.ready();
    return super.add(org);
  }

  /** @inheritdoc */
  override async get(id: string): Promise<OrgRecord | undefined> {
    await this.ready();
    return super.get(id);
  }

  /** @inheritdoc */
  async bySlug(slug: string): Promise<OrgRecord | undefined> {
    await this.ready();
    return (await this.docs.find('slug', { prefix: slug, limit: 2 })).docs.find((o) => o.slug === slug);
  }

  /** @inheritdoc */
  async update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined> {
    await this.ready();
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
  override async delete(id: string, guard?: (org: OrgRecord) => void): Promise<boolean> {
    await this.ready();
    // Judged on the locked, stored organization: a change that lands after this is after the decision.
    if (guard !== undefined && (await this.docs.update(id, (current) => (guard(current), undefined))) === undefined) return false;
    // The organization goes first: its members and invitations, orphaned by a stop half-way, are read by nobody.
    if (!(await super.delete(id))) return false;
    for (;;) {
      const page = await this.memberDocs.find('org', { prefix: ofOrg(id), limit: 500 });
      if (page.docs.length === 0) break;
      for (const m of page.docs) await this.memberDocs.delete(memberId(m.orgId, m.userId));
    }
    for (const inv of await this.invitations(id)) await this.invites.delete(inv.id);
    return true;
  }

  /** @inheritdoc */
  async list(query: { cursor?: string | undefined; limit: number }): Promise<{ orgs: OrgRecord[]; next?: string | undefined }> {
    await this.ready();
    const page = await this.docs.find('slug', { prefix: '', after: query.cursor, limit: query.limit });
    return { orgs: page.docs, next: page.next };
  }

  /** @inheritdoc */
  async ofUser(userId: string): Promise<OrgRecord[]> {
    await this.ready();
    // A prefix finds `x` and `x\u0000y` alike: only this user's records count.
    const memberships = (await allDocs(this.memberDocs, 'user', ofMember(userId))).filter((m) => m.userId === userId);
    const orgs = await Promise.all(memberships.map((m) => this.docs.get(m.orgId)));
    return orgs.filter((o): o is OrgRecord => o !== undefined);
  }

  /** @inheritdoc */
  async member(orgId: string, userId: string): Promise<OrgMember | undefined> {
    await this.ready();
    return this.memberDocs.get(memberId(orgId, userId));
  }

  /** @inheritdoc */
  async members(orgId: string, query: MemberQuery): Promise<MemberPage> {
    await this.ready();
    const [index, prefix] = query.team !== undefined ? ['team', ofOrgPart(orgId, query.team)] : query.role !== undefined ? ['role', ofOrgPart(orgId, query.role)] : ['org', ofOrg(orgId)];
    const page = await this.memberDocs.find(index, { prefix, after: query.cursor, limit: query.limit });
    return { members: page.docs, next: page.next };
  }

  /** @inheritdoc */
  async countMembers(orgId: string): Promise<number> {
    await this.ready();
    return this.memberDocs.count('org', ofOrg(orgId));
  }

  /** @inheritdoc */
  async addMember(member: OrgMember): Promise<boolean> {
    await this.ready();
    return (await this.memberDocs.insert(member)).inserted;
  }

  /** @inheritdoc */
  async updateMember(orgId: string, userId: string, change: (member: OrgMember) => OrgMember | undefined): Promise<OrgMember | undefined> {
    await this.ready();
    return this.memberDocs.update(memberId(orgId, userId), (current) => {
      const next = change(current);
      return next === undefined ? undefined : { ...next, orgId, userId };
    });
  }

  /** @inheritdoc */
  async removeMember(orgId: string, userId: string): Promise<OrgMember | undefined> {
    await this.ready();
    return this.memberDocs.delete(memberId(orgId, userId));
  }

  /** @inheritdoc */
  async addInvitation(invitation: OrgInvitation): Promise<void> {
    await this.ready();
    await this.invites.insert(invitation);
  }

  /** @inheritdoc */
  async invitations(orgId: string): Promise<OrgInvitation[]> {
    await this.ready();
    return allDocs(this.invites, 'org', ofOrg(orgId));
  }

  /** @inheritdoc */
  async invitation(id: string): Promise<OrgInvitation | undefined> {
    await this.ready();
    return this.invites.get(id);
  }

  /** @inheritdoc */
  async takeInvitation(id: string): Promise<OrgInvitation | undefined> {
    await this.ready();
    return this.invites.delete(id);
  }

  /** @inheritdoc */
  async deleteInvitation(id: string): Promise<boolean> {
    await this.ready();
    return (await this.invites.delete(id)) !== undefined;
  }
}
