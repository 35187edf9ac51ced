import { createHash } from 'node:crypto';
import { PgDatabase } from '../../internal/postgres';
import { BaseAvatarStore } from '../../core/avatar/base-avatar-store';

/** The versions of the PostgreSQL avatar store's table (`authgate_avatars`). */
export function postgresAvatarSteps(db: Pick<PgDatabase, 'table'>): string[] {
  return [`CREATE TABLE ${db.table('avatars')} (id text PRIMARY KEY, data bytea NOT NULL, fingerprint text NOT NULL, updated timestamptz NOT NULL DEFAULT now())`];
}

/**
 * Avatars in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (table
 * `authgate_avatars`: the image bytes and a sha1 fingerprint used as the ETag).
 */
export class PostgresAvatarStore extends BaseAvatarStore {
  private readonly db: PgDatabase;
  private readonly t: string;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super();
    this.db = new PgDatabase(uri);
    this.t = this.db.table('avatars');
  }

  private ready(): Promise<void> {
    return this.db.migrate('avatars', postgresAvatarSteps(this.db));
  }

  protected override async write(avatarId: string, data: Buffer): Promise<void> {
    await this.ready();
    const print = createHash('sha1').update(data).digest('hex');
    await this.db.query(`INSERT INTO ${this.t} (id, data, fingerprint) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, fingerprint = EXCLUDED.fingerprint, updated = now()`, [
      avatarId,
      data,
      print,
    ]);
  }

  protected override async read(avatarId: string): Promise<Buffer | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ data: Buffer }>(`SELECT data FROM ${this.t} WHERE id = $1`, [avatarId]);
    return rows[0]?.data;
  }

  protected override async fingerprint(avatarId: string): Promise<string | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ fingerprint: string }>(`SELECT fingerprint FROM ${this.t} WHERE id = $1`, [avatarId]);
    return rows[0]?.fingerprint;
  }

  protected override async delete(avatarId: string): Promise<void> {
    await this.ready();
    await this.db.query(`DELETE FROM ${this.t} WHERE id = $1`, [avatarId]);
  }

  protected override async ids(): Promise<string[]> {
    await this.ready();
    const { rows } = await this.db.query<{ id: string }>(`SELECT id FROM ${this.t} ORDER BY id`);
    return rows.map((r) => r.id);
  }

  protected override async release(): Promise<void> {
    await this.db.close();
  }
}
