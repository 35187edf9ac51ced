import type { Level } from 'level';
import { KeyLock } from '../../internal/key-lock';
import { openLevel } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import { byAge, memberIds } from '../org-records';
import { SlugTakenError, type OrgInvitation, type OrgRecord, type OrgStore } from '../org-store';

const ORG = 'org!';
const SLUG = 'orgslug!';
/** `orgmember!<user id>\0<org id>`: the organizations of a user. */
const MEMBER = 'orgmember!';
const INVITATION = 'orginvite!';
/** `orginv!<org id>\0<invitation id>`: the invitations of an organization. */
const ORG_INVITATION = 'orginv!';
const SEP = '\u0000';
const END = '\uffff';

type Op = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/**
 * Organizations in an embedded LevelDB folder, one process at a time: every write runs under one
 * lock (slugs are unique across organizations), and an organization, its slug and its member
 * index change in one batch.
 */
export class LevelOrgStore implements OrgStore {
  private readonly db: Level<string, string>;
  private readonly lease: Lease<Level<string, string>>;
  private readonly lock = new KeyLock();

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    this.lease = openLevel<string>(path, 'utf8');
    this.db = this.lease.handle;
  }

  private write<T>(task: () => Promise<T>): Promise<T> {
    return this.lock.run('write', task);
  }

  private async read<T>(key: string): Promise<T | undefined> {
    const value = await this.db.get(key);
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  private static index(org: OrgRecord, type: 'put' | 'del'): Op[] {
    return [
      type === 'put' ? { type, key: SLUG + org.slug, value: org.id } : { type, key: SLUG + org.slug },
      ...memberIds(org).map((userId): Op => (type === 'put' ? { type, key: MEMBER + userId + SEP + org.id, value: '' } : { type, key: MEMBER + userId + SEP + org.id })),
    ];
  }

  /** @inheritdoc */
  add(org: OrgRecord): Promise<boolean> {
    return this.write(async () => {
      if ((await this.db.get(ORG + org.id)) !== undefined || (await this.db.get(SLUG + org.slug)) !== undefined) return false;
      await this.db.batch([{ type: 'put', key: ORG + org.id, value: JSON.stringify(org) }, ...LevelOrgStore.index(org, 'put')]);
      return true;
    });
  }

  /** @inheritdoc */
  get(id: string): Promise<OrgRecord | undefined> {
    return this.read<OrgRecord>(ORG + id);
  }

  /** @inheritdoc */
  async bySlug(slug: string): Promise<OrgRecord | undefined> {
    const id = await this.db.get(SLUG + slug);
    return id === undefined ? undefined : this.get(id);
  }

  /** @inheritdoc */
  update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined> {
    return this.write(async () => {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      const saved = { ...next, id };
      if (saved.slug !== current.slug && (await this.db.get(SLUG + saved.slug)) !== undefined) throw new SlugTakenError();
      await this.db.batch([...LevelOrgStore.index(current, 'del'), { type: 'put', key: ORG + id, value: JSON.stringify(saved) }, ...LevelOrgStore.index(saved, 'put')]);
      return saved;
    });
  }

  private async keys(prefix: string): Promise<string[]> {
    const found: string[] = [];
    for await (const key of this.db.keys({ gt: prefix, lt: prefix + END })) found.push(key.slice(prefix.length));
    return found;
  }

  /** @inheritdoc */
  delete(id: string): Promise<boolean> {
    return this.write(async () => {
      const current = await this.get(id);
      if (!current) return false;
      const invitations = await this.keys(ORG_INVITATION + id + SEP);
      await this.db.batch([
        { type: 'del', key: ORG + id },
        ...LevelOrgStore.index(current, 'del'),
        ...invitations.flatMap((inv): Op[] => [
          { type: 'del', key: INVITATION + inv },
          { type: 'del', key: ORG_INVITATION + id + SEP + inv },
        ]),
      ]);
      return true;
    });
  }

  /** @inheritdoc */
  async ofUser(userId: string): Promise<OrgRecord[]> {
    const orgs = await Promise.all((await this.keys(MEMBER + userId + SEP)).map((id) => this.get(id)));
    return orgs.filter((o): o is OrgRecord => o !== undefined).sort(byAge);
  }

  /** @inheritdoc */
  addInvitation(invitation: OrgInvitation): Promise<void> {
    return this.write(() =>
      this.db.batch([
        { type: 'put', key: INVITATION + invitation.id, value: JSON.stringify(invitation) },
        { type: 'put', key: ORG_INVITATION + invitation.orgId + SEP + invitation.id, value: '' },
      ]),
    );
  }

  /** @inheritdoc */
  async invitations(orgId: string): Promise<OrgInvitation[]> {
    const found = await Promise.all((await this.keys(ORG_INVITATION + orgId + SEP)).map((id) => this.read<OrgInvitation>(INVITATION + id)));
    return found.filter((inv): inv is OrgInvitation => inv !== undefined).sort(byAge);
  }

  /** @inheritdoc */
  takeInvitation(id: string): Promise<OrgInvitation | undefined> {
    return this.write(async () => {
      const found = await this.read<OrgInvitation>(INVITATION + id);
      if (found === undefined) return undefined;
      await this.db.batch([
        { type: 'del', key: INVITATION + id },
        { type: 'del', key: ORG_INVITATION + found.orgId + SEP + id },
      ]);
      return found;
    });
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
