import type { QueryResultRow } from 'pg';
import { PgDatabase } from '../../internal/postgres';
import type { Subscription } from '../../core/state/state-store';
import { BaseStateStore, type StateEntry } from '../../core/state/base-state-store';

/** Expired rows are purged every this many writes, a bounded batch at a time (an index on `until` finds them). */
const PURGE_EVERY = 256;
const PURGE_BATCH = 1000;
/** How often the server's clock is read again. */
const CLOCK_CHECK_MS = 30_000;
/**
 * The condition every change carries: a statement that reaches the server after its deadline (the
 * parameter, ms since the epoch in the server's clock), as one held by a network partition does
 * after its caller was answered 503, fails (a division by zero, which the clock makes happen only
 * then) instead of changing anything, or of quietly changing nothing while its caller still waits.
 */
const ON_TIME = (n: number): string => `1 / (CASE WHEN clock_timestamp() > to_timestamp($${n}::float8 / 1000) THEN 0 ELSE 1 END) = 1`;

/** The versions of the PostgreSQL state store's tables (`authgate_state`, `authgate_state_members`). */
export function postgresStateSteps(db: Pick<PgDatabase, 'table'>): string[] {
  const t = db.table('state');
  const m = db.table('state_members');
  return [
    `CREATE TABLE ${t} (key text PRIMARY KEY, value text NOT NULL, until bigint NOT NULL); CREATE INDEX ON ${t} (until)`,
    `CREATE TABLE ${m} (grp text NOT NULL, member text NOT NULL, value text NOT NULL, until bigint NOT NULL, PRIMARY KEY (grp, member)); CREATE INDEX ON ${m} (until)`,
  ];
}

/**
 * State in PostgreSQL, shared by every instance: `postgres://user@host/db?schema=app` (table
 * `authgate_state`, created by the first instance that opens it). Each operation is one atomic
 * statement: `setIfAbsent` and `increment` are `INSERT … ON CONFLICT`, `take` is `DELETE … RETURNING`.
 * Every change carries its deadline in the server's clock and does nothing when it arrives later
 * (held by a partition while its caller was answered 503).
 */
export class PostgresStateStore extends BaseStateStore {
  private readonly db: PgDatabase;
  private readonly t: string;
  private readonly m: string;
  private readonly subscriptions = new Set<Subscription>();
  private writes = 0;
  /** How long the callers of a statement wait for it (the store guard's time limit). */
  private commandLimitMs = 5000;
  /** The server's clock minus this process's, and when and how precisely it was read. */
  private clock: { offset: number; error: number; read: number } | undefined;

  /** @param uri - `postgres://` or `postgresql://`; see {@link PgDatabase} for its parameters. */
  constructor(uri: string) {
    super();
    this.db = new PgDatabase(uri);
    this.t = this.db.table('state');
    this.m = this.db.table('state_members');
  }

  private ready(): Promise<void> {
    return this.db.migrate('state', postgresStateSteps(this.db));
  }

  /** Told by the store guard how long callers wait: a change that reaches the server later does nothing (a 503 means nothing changed). */
  limitCommandsTo(ms: number): void {
    this.commandLimitMs = ms;
  }

  /** Runs a change; a late refusal (the division by zero of ON_TIME) makes the next change read the server's clock again. */
  private async change<R extends QueryResultRow>(text: string, params: unknown[]): Promise<{ rows: R[]; rowCount: number }> {
    try {
      return await this.db.query<R>(text, params);
    } catch (err) {
      if ((err as { code?: unknown } | undefined)?.code === '22012') this.clock = undefined;
      throw err;
    }
  }

  /** The deadline, in the server's clock (ms since the epoch), of a change whose caller started waiting at `started`. */
  private async deadline(started: number): Promise<number> {
    if (this.clock === undefined || Date.now() - this.clock.read > CLOCK_CHECK_MS) {
      const before = Date.now();
      const { rows } = await this.db.query<{ now: number }>('SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS now');
      const after = Date.now();
      // A slow reading (a network that stalls) says too little of the server's clock: read again next time.
      if (after - before > this.commandLimitMs / 2) throw new Error(`the PostgreSQL server's clock took ${after - before} ms to read`);
      this.clock = { offset: Number(rows[0]?.now) - (before + after) / 2, error: after - before, read: after };
    }
    // Early rather than late by the clock reading's uncertainty.
    return Math.floor(started + this.clock.offset + this.commandLimitMs - this.clock.error - 20);
  }

  private async purge(now: number): Promise<void> {
    if (++this.writes % PURGE_EVERY !== 0) return;
    await this.db.query(`DELETE FROM ${this.t} WHERE key IN (SELECT key FROM ${this.t} WHERE until <= $1 LIMIT ${PURGE_BATCH})`, [now]);
    await this.db.query(`DELETE FROM ${this.m} WHERE (grp, member) IN (SELECT grp, member FROM ${this.m} WHERE until <= $1 LIMIT ${PURGE_BATCH})`, [now]);
  }

  protected override async write(key: string, entry: StateEntry): Promise<void> {
    const started = Date.now();
    await this.ready();
    await this.change(
      `INSERT INTO ${this.t} (key, value, until) SELECT $1::text, $2::text, $3::bigint WHERE ${ON_TIME(4)} ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, until = EXCLUDED.until`,
      [key, entry.value, entry.until, await this.deadline(started)],
    );
    await this.purge(Date.now());
  }

  protected override async read(key: string, now: number): Promise<StateEntry | undefined> {
    await this.ready();
    const { rows } = await this.db.query<{ value: string; until: string }>(`SELECT value, until FROM ${this.t} WHERE key = $1 AND until > $2`, [key, now]);
    return rows[0] && { value: rows[0].value, until: Number(rows[0].until) };
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    const started = Date.now();
    await this.ready();
    const { rowCount } = await this.change(
      `INSERT INTO ${this.t} AS s (key, value, until) SELECT $1::text, $2::text, $3::bigint WHERE ${ON_TIME(5)} ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, until = EXCLUDED.until WHERE s.until <= $4`,
      [key, entry.value, entry.until, now, await this.deadline(started)],
    );
    await this.purge(now);
    return rowCount === 1;
  }

  protected override async remove(key: string, now: number): Promise<StateEntry | undefined> {
    const started = Date.now();
    await this.ready();
    const { rows } = await this.change<{ value: string; until: string }>(`DELETE FROM ${this.t} WHERE key = $1 AND ${ON_TIME(2)} RETURNING value, until`, [key, await this.deadline(started)]);
    const row = rows[0];
    return row && Number(row.until) > now ? { value: row.value, until: Number(row.until) } : undefined;
  }

  protected override async add(key: string, fresh: StateEntry, now: number): Promise<number> {
    const started = Date.now();
    await this.ready();
    const { rows } = await this.change<{ value: string }>(
      `INSERT INTO ${this.t} AS s (key, value, until) SELECT $1::text, '1', $2::bigint WHERE ${ON_TIME(4)} ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN s.until <= $3 THEN '1' ELSE (s.value::bigint + 1)::text END,
         until = CASE WHEN s.until <= $3 THEN EXCLUDED.until ELSE s.until END
       RETURNING value`,
      [key, fresh.until, now, await this.deadline(started)],
    );
    await this.purge(now);
    return Number(rows[0]?.value);
  }

  protected override async writeMember(group: string, member: string, entry: StateEntry): Promise<void> {
    const started = Date.now();
    await this.ready();
    await this.change(
      `INSERT INTO ${this.m} (grp, member, value, until) SELECT $1::text, $2::text, $3::text, $4::bigint WHERE ${ON_TIME(5)} ON CONFLICT (grp, member) DO UPDATE SET value = EXCLUDED.value, until = EXCLUDED.until`,
      [group, member, entry.value, entry.until, await this.deadline(started)],
    );
    await this.purge(Date.now());
  }

  protected override async readMembers(group: string, now: number): Promise<Array<[string, StateEntry]>> {
    await this.ready();
    const { rows } = await this.db.query<{ member: string; value: string; until: string }>(`SELECT member, value, until FROM ${this.m} WHERE grp = $1 AND until > $2`, [group, now]);
    return rows.map((row) => [row.member, { value: row.value, until: Number(row.until) }]);
  }

  protected override async removeMember(group: string, member: string): Promise<void> {
    const started = Date.now();
    await this.ready();
    await this.change(`DELETE FROM ${this.m} WHERE grp = $1 AND member = $2 AND ${ON_TIME(3)}`, [group, member, await this.deadline(started)]);
  }

  /** NOTIFY: every instance LISTENing through a store on this schema hears it. */
  override async publish(channel: string, message: string): Promise<void> {
    this.checkKey(channel);
    await this.db.notify(channel, message);
  }

  /** LISTEN on a connection of its own; see {@link PgDatabase.listen}. */
  override subscribe(channel: string, onMessage: (message: string) => void, onGap: () => void): Subscription {
    this.checkKey(channel);
    const listening = this.db.listen(channel, onMessage, onGap);
    this.subscriptions.add(listening);
    return listening;
  }

  protected override async release(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.db.close();
  }
}
