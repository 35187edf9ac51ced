import { PgDatabase } from '../../internal/postgres';
import type { Credential, CredentialStore } from '../credential-store';

/**
 * Credentials in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app`
 * (table `authgate_credentials`). `update` locks the row (`FOR UPDATE`).
 */
export class PostgresCredentialStore implements CredentialStore {
  private readonly db: PgDatabase;
  private readonly table: string;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    this.db = new PgDatabase(uri);
    this.table = this.db.table('credentials');
  }

  private ready(): Promise<void> {
    return this.db.migrate('credentials', [`CREATE TABLE ${this.table} (id text PRIMARY KEY, user_id text NOT NULL, doc jsonb NOT NULL); CREATE INDEX ON ${this.table} (user_id)`]);
  }

  /** @inheritdoc */
  async add(credential: Credential): Promise<boolean> {
    await this.ready();
    const { rowCount } = await this.db.query(`INSERT INTO ${this.table} (id, user_id, doc) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [
      credential.id,
      credential.userId,
      JSON.stringify(credential),
    ]);
    return rowCount === 1;
  }

  /** @inheritdoc */
  async get(id: string): Promise<Credential | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: Credential }>(`SELECT doc FROM ${this.table} WHERE id = $1`, [id]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  async list(userId: string): Promise<Credential[]> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: Credential }>(`SELECT doc FROM ${this.table} WHERE user_id = $1 ORDER BY (doc->>'created')::bigint, id`, [userId]);
    return rows.map((r) => r.doc);
  }

  /** @inheritdoc */
  async update(id: string, change: (credential: Credential) => Credential | undefined): Promise<Credential | undefined> {
    await this.ready();
    return this.db.updateDoc<Credential>(this.table, id, change, async (query, next, current) => {
      const saved = { ...next, id, userId: current.userId };
      await query(`UPDATE ${this.table} SET doc = $2 WHERE id = $1`, [id, JSON.stringify(saved)]);
      return saved;
    });
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    const { rowCount } = await this.db.query(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
    return rowCount === 1;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.db.close();
  }
}
