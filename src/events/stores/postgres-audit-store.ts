import { PgDatabase } from '../../internal/postgres';
import type { AuthEvent } from '../auth-event';
import type { AuditPage, AuditQuery, AuditStore } from '../audit-store';
import { eventIdFloor } from '../event-ids';

/** How many old events one purge statement deletes (short statements, small locks). */
const PURGE_BATCH = 1000;

/**
 * The audit log in PostgreSQL, shared by every instance: table `authgate_audit` (the event in
 * `doc`, its id in time order as the primary key, an index on user and id), read newest first.
 */
export class PostgresAuditStore implements AuditStore {
  private readonly db: PgDatabase;
  private readonly table: string;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    this.db = new PgDatabase(uri);
    this.table = this.db.table('audit');
  }

  private ready(): Promise<void> {
    return this.db.migrate('audit', [
      `CREATE TABLE ${this.table} (id text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C", type text NOT NULL, doc jsonb NOT NULL);` + `CREATE INDEX ON ${this.table} (user_id, id)`,
    ]);
  }

  /** @inheritdoc */
  async append(event: AuthEvent): Promise<void> {
    await this.ready();
    await this.db.query(`INSERT INTO ${this.table} (id, user_id, type, doc) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`, [event.id, event.userId ?? null, event.type, JSON.stringify(event)]);
  }

  /** @inheritdoc */
  async list(query: AuditQuery): Promise<AuditPage> {
    await this.ready();
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown): void => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (query.userId !== undefined) add('user_id = ?', query.userId);
    if (query.types !== undefined) add('type = ANY(?)', [...query.types]);
    if (query.from !== undefined) add('id >= ?', eventIdFloor(query.from));
    if (query.to !== undefined) add('id < ?', eventIdFloor(query.to));
    if (query.after !== undefined) add('id < ?', query.after);
    params.push(query.limit + 1);
    const { rows } = await this.db.query<{ doc: AuthEvent }>(
      `SELECT doc FROM ${this.table} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    const events = rows.slice(0, query.limit).map((r) => r.doc);
    return { events, next: rows.length > query.limit ? events[events.length - 1]?.id : undefined };
  }

  /** @inheritdoc */
  async purge(before: number): Promise<number> {
    await this.ready();
    let gone = 0;
    for (;;) {
      const { rowCount } = await this.db.query(`DELETE FROM ${this.table} WHERE id IN (SELECT id FROM ${this.table} WHERE id < $1 ORDER BY id LIMIT ${PURGE_BATCH})`, [eventIdFloor(before)]);
      gone += rowCount;
      if (rowCount < PURGE_BATCH) return gone;
    }
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.db.close();
  }
}
