import { PgDatabase } from '../../internal/postgres';
import { SlugTakenError, type OrgInvitation, type OrgRecord, type OrgStore } from '../org-store';

/** PostgreSQL's unique_violation. */
const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;

/**
 * Organizations in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app`
 * (tables `authgate_orgs`, one row per organization with its members in the document, and
 * `authgate_org_invitations`). `update` locks the row; slugs are a unique column; a user's
 * organizations are found through a GIN index on the members.
 */
export class PostgresOrgStore implements OrgStore {
  private readonly db: PgDatabase;
  private readonly orgs: string;
  private readonly invites: string;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    this.db = new PgDatabase(uri);
    this.orgs = this.db.table('orgs');
    this.invites = this.db.table('org_invitations');
  }

  private ready(): Promise<void> {
    return this.db.migrate('orgs', [
      `CREATE TABLE ${this.orgs} (id text COLLATE "C" PRIMARY KEY, slug text COLLATE "C" NOT NULL UNIQUE, created bigint NOT NULL, doc jsonb NOT NULL);` +
        `CREATE INDEX ON ${this.orgs} USING gin ((doc->'members') jsonb_path_ops);` +
        `CREATE TABLE ${this.invites} (id text COLLATE "C" PRIMARY KEY, org_id text COLLATE "C" NOT NULL REFERENCES ${this.orgs} (id) ON DELETE CASCADE, created bigint NOT NULL, doc jsonb NOT NULL);` +
        `CREATE INDEX ON ${this.invites} (org_id)`,
    ]);
  }

  /** @inheritdoc */
  async add(org: OrgRecord): Promise<boolean> {
    await this.ready();
    const { rowCount } = await this.db.query(`INSERT INTO ${this.orgs} (id, slug, created, doc) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [org.id, org.slug, org.created, JSON.stringify(org)]);
    return rowCount === 1;
  }

  /** @inheritdoc */
  async get(id: string): Promise<OrgRecord | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: OrgRecord }>(`SELECT doc FROM ${this.orgs} WHERE id = $1`, [id]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  async bySlug(slug: string): Promise<OrgRecord | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: OrgRecord }>(`SELECT doc FROM ${this.orgs} WHERE slug = $1`, [slug]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  async update(id: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord | undefined> {
    await this.ready();
    try {
      return await this.db.updateDoc<OrgRecord>(this.orgs, id, change, async (query, next) => {
        const saved = { ...next, id };
        await query(`UPDATE ${this.orgs} SET slug = $2, doc = $3 WHERE id = $1`, [id, saved.slug, JSON.stringify(saved)]);
        return saved;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new SlugTakenError();
      throw err;
    }
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    const { rowCount } = await this.db.query(`DELETE FROM ${this.orgs} WHERE id = $1`, [id]);
    return rowCount === 1;
  }

  /** @inheritdoc */
  async ofUser(userId: string): Promise<OrgRecord[]> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: OrgRecord }>(`SELECT doc FROM ${this.orgs} WHERE doc->'members' @> $1::jsonb ORDER BY created, id`, [JSON.stringify([{ userId }])]);
    return rows.map((r) => r.doc);
  }

  /** @inheritdoc */
  async addInvitation(invitation: OrgInvitation): Promise<void> {
    await this.ready();
    await this.db.query(`INSERT INTO ${this.invites} (id, org_id, created, doc) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`, [
      invitation.id,
      invitation.orgId,
      invitation.created,
      JSON.stringify(invitation),
    ]);
  }

  /** @inheritdoc */
  async invitations(orgId: string): Promise<OrgInvitation[]> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: OrgInvitation }>(`SELECT doc FROM ${this.invites} WHERE org_id = $1 ORDER BY created, id`, [orgId]);
    return rows.map((r) => r.doc);
  }

  /** @inheritdoc */
  async takeInvitation(id: string): Promise<OrgInvitation | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: OrgInvitation }>(`DELETE FROM ${this.invites} WHERE id = $1 RETURNING doc`, [id]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  async deleteInvitation(id: string): Promise<boolean> {
    return (await this.takeInvitation(id)) !== undefined;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.db.close();
  }
}
