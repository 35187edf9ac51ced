import { PgDatabase, type PgQuery } from '../../internal/postgres';
import { KEY_END, sameSearchKeys, searchEntries } from '../search-keys';
import type { UserRecord, UserStore, UserStoreQuery, UserStorePage } from '../user-store';

/**
 * Users in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (tables
 * `authgate_users` and `authgate_user_keys`, the search index, in byte order). Writes of a user
 * and its index entries are one transaction; `update` locks the row.
 */
export class PostgresUserStore implements UserStore {
  private readonly db: PgDatabase;
  private readonly users: string;
  private readonly keys: string;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    this.db = new PgDatabase(uri);
    this.users = this.db.table('users');
    this.keys = this.db.table('user_keys');
  }

  private ready(): Promise<void> {
    return this.db.migrate('users', [
      `CREATE TABLE ${this.users} (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL);` +
        `CREATE TABLE ${this.keys} (key text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL REFERENCES ${this.users} (id) ON DELETE CASCADE, kind text NOT NULL, other text COLLATE "C", PRIMARY KEY (key, id, kind));` +
        `CREATE INDEX ON ${this.keys} (id)`,
    ]);
  }

  private async writeKeys(query: PgQuery, user: UserRecord): Promise<void> {
    await query(`DELETE FROM ${this.keys} WHERE id = $1`, [user.id]);
    for (const e of searchEntries(user)) {
      await query(`INSERT INTO ${this.keys} (key, id, kind, other) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [e.key, e.id, e.kind, e.other ?? null]);
    }
  }

  /** @inheritdoc */
  async add(user: UserRecord): Promise<boolean> {
    await this.ready();
    return this.db.transaction(async (query) => {
      const { rowCount } = await query(`INSERT INTO ${this.users} (id, doc) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [user.id, JSON.stringify(user)]);
      if (rowCount !== 1) return false;
      await this.writeKeys(query, user);
      return true;
    });
  }

  /** @inheritdoc */
  async get(id: string): Promise<UserRecord | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ doc: UserRecord }>(`SELECT doc FROM ${this.users} WHERE id = $1`, [id]);
    return rows[0]?.doc;
  }

  /** @inheritdoc */
  async update(id: string, change: (user: UserRecord) => UserRecord | undefined): Promise<UserRecord | undefined> {
    await this.ready();
    return this.db.updateDoc<UserRecord>(this.users, id, change, async (query, next, current) => {
      const saved = { ...next, id };
      await query(`UPDATE ${this.users} SET doc = $2 WHERE id = $1`, [id, JSON.stringify(saved)]);
      if (!sameSearchKeys(current, saved)) await this.writeKeys(query, saved);
      return saved;
    });
  }

  /** @inheritdoc */
  async delete(id: string): Promise<boolean> {
    await this.ready();
    const { rowCount } = await this.db.query(`DELETE FROM ${this.users} WHERE id = $1`, [id]);
    return rowCount === 1;
  }

  /** @inheritdoc */
  async list(query: UserStoreQuery): Promise<UserStorePage> {
    await this.ready();
    const take = query.limit + 1;
    if (query.prefix === undefined) {
      const { rows } = await this.db.query<{ doc: UserRecord }>(`SELECT doc FROM ${this.users} WHERE id > $1 ORDER BY id LIMIT $2`, [query.after?.id ?? '', take]);
      const users = rows.slice(0, query.limit).map((r) => r.doc);
      return { users, next: rows.length > query.limit ? { id: (users[users.length - 1] as UserRecord).id } : undefined };
    }
    const after = query.after;
    // One lower bound for the index scan: the prefix on the first page, the cursor's row on later ones
    // (the planner starts a scan at a row comparison rather than the tighter of two bounds).
    const from = after === undefined ? 'k.key >= $1' : '(k.key, k.id) > ($4, $5)';
    const { rows } = await this.db.query<{ key: string; doc: UserRecord }>(
      `SELECT k.key, u.doc FROM ${this.keys} k JOIN ${this.users} u ON u.id = k.id
       WHERE ${from} AND k.key <= $2 AND starts_with(k.key, $1)
         AND (k.kind = 'name' OR k.other IS NULL OR NOT starts_with(k.other, $1))
       ORDER BY k.key, k.id LIMIT $3`,
      [query.prefix, query.prefix + KEY_END, take, ...(after === undefined ? [] : [after.key ?? '', after.id])],
    );
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { users: page.map((r) => r.doc), next: rows.length > query.limit && last ? { key: last.key, id: last.doc.id } : undefined };
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.db.close();
  }
}
