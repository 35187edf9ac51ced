import type { Pool, PoolClient, PoolConfig, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { hostText, withHost, type HostPort } from './host-list';
import { loadOptional } from './optional';

/** What a host must be to be used, as libpq's `target_session_attrs` spells it (authgate writes, so only these two). */
export type TargetSessionAttrs = 'read-write' | 'primary';

/** The part of a pool {@link PgDatabase} uses: one host's `pg.Pool`, or a {@link FailoverPool} over several. */
export interface PgPool {
  query<R extends QueryResultRow>(text: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>>;
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
  /** The URI of the host in use now (the primary, for several hosts). */
  currentUri(): Promise<string>;
  /** NOTIFY `channel` with `message` (for several hosts: only while the host in use is still the primary). */
  notify(channel: string, message: string): Promise<void>;
}

/**
 * Errors that say the host is no longer the primary or no longer there: connection failures, the
 * server shutting down or refusing connections (class 57P), a connection exception (class 08),
 * and a write refused by a read-only server (25006, a demoted primary).
 */
export function isLostPrimary(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (/^(08|57P)/.test(code) || code === '25006') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'].includes(code)) return true;
  return typeof e?.message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message);
}

/** How often the hosts may be asked again while no primary answers, in ms. */
const SEARCH_EVERY_MS = 250;

/**
 * A pool over several PostgreSQL hosts (`postgres://h1:5432,h2:5432/db`) that uses the one that is
 * the primary: the first host (in the order given) whose server says it takes writes. A query that
 * fails because the primary is gone or was demoted fails (a 503: it is never sent again) and makes
 * the next query look for the primary anew; when another host has become it (a promoted standby),
 * queries go there and the old host's connections are closed.
 */
export class FailoverPool implements PgPool {
  private current: { host: HostPort; pool: Pool } | undefined;
  private search: Promise<{ host: HostPort; pool: Pool }> | undefined;
  private lastSearch = 0;
  private lastFailure: unknown;
  private ended = false;
  /** The clients whose queries already tell this pool of a lost primary (a pool hands the same client out again). */
  private readonly watched = new WeakSet<PoolClient>();

  /**
   * @param base - the URI with the first host (its user, password, database and parameters serve every host).
   * @param hosts - the hosts, in order of preference.
   * @param attrs - what a host must be.
   * @param config - the pool settings of each host's pool.
   */
  constructor(
    private readonly base: URL,
    private readonly hosts: readonly HostPort[],
    private readonly attrs: TargetSessionAttrs,
    private readonly config: PoolConfig,
  ) {}

  private uriOf(host: HostPort): string {
    return withHost(this.base, host).toString();
  }

  /** SQL that is true on a host {@link TargetSessionAttrs} accepts. */
  private get qualifying(): string {
    return this.attrs === 'primary' ? 'NOT pg_is_in_recovery()' : "current_setting('transaction_read_only') = 'off'";
  }

  /** Whether the server at `host` is what {@link TargetSessionAttrs} asks for. */
  private async qualifies(host: HostPort): Promise<boolean> {
    const { Client } = loadOptional<typeof import('pg')>('pg', 'a postgres:// store');
    const client = new Client({ connectionString: this.uriOf(host), connectionTimeoutMillis: this.config.connectionTimeoutMillis ?? 5000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean }>(`SELECT ${this.qualifying} AS ok`);
      return rows[0]?.ok === true;
    } catch (err) {
      this.lastFailure = err;
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async find(): Promise<{ host: HostPort; pool: Pool }> {
    for (const host of this.hosts) {
      if (!(await this.qualifies(host))) continue;
      if (this.current !== undefined && hostText(this.current.host) === hostText(host)) return this.current;
      const { Pool: PgPoolClass } = loadOptional<typeof import('pg')>('pg', 'a postgres:// store');
      const pool = new PgPoolClass({ ...this.config, connectionString: this.uriOf(host) });
      pool.on('error', () => undefined);
      const old = this.current;
      this.current = { host, pool };
      // Queries still running on the old host end on their own; its pool closes after them.
      if (old !== undefined) void old.pool.end().catch(() => undefined);
      return this.current;
    }
    const why = this.lastFailure instanceof Error ? `: ${this.lastFailure.message}` : '';
    throw Object.assign(new Error(`no PostgreSQL host of ${this.hosts.map(hostText).join(', ')} is ${this.attrs}${why}`), { code: '08001' });
  }

  /** The pool of the primary, looking for it when it is not known (one search at a time, not more often than every 250 ms). */
  private async primary(): Promise<Pool> {
    if (this.ended) throw new Error('the PostgreSQL pool is closed');
    if (this.current !== undefined) return this.current.pool;
    if (this.search === undefined) {
      const wait = Math.max(0, this.lastSearch + SEARCH_EVERY_MS - Date.now());
      this.search = new Promise((resolve) => setTimeout(resolve, wait))
        .then(() => this.find())
        .finally(() => {
          this.lastSearch = Date.now();
          this.search = undefined;
        });
    }
    return (await this.search).pool;
  }

  /** Forgets the primary when `err` says it is gone, so that the next query looks for it again. */
  private noticed(pool: Pool, err: unknown): never {
    if (isLostPrimary(err) && this.current?.pool === pool) this.current = undefined;
    throw err;
  }

  /** @inheritdoc */
  async query<R extends QueryResultRow>(text: string | QueryConfig, values?: unknown[]): Promise<QueryResult<R>> {
    const pool = await this.primary();
    return (pool.query(text as string, values) as Promise<QueryResult<R>>).catch((err: unknown) => this.noticed(pool, err));
  }

  /** @inheritdoc */
  async connect(): Promise<PoolClient> {
    const pool = await this.primary();
    const client = await pool.connect().catch((err: unknown) => this.noticed(pool, err));
    if (this.watched.has(client)) return client;
    this.watched.add(client);
    // A transaction's statements run on this client: their failures tell of a lost primary too.
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      // The pool's own queries pass a callback (no promise comes back): those are left as they are.
      return result instanceof Promise ? result.catch((err: unknown) => this.noticed(pool, err)) : result;
    };
    return client;
  }

  /**
   * Also the check that the host in use is still the primary: a primary turned read-only while it
   * keeps answering (a switchover) still takes a NOTIFY, which its listeners would hear while the
   * new primary's writers announce elsewhere. So the NOTIFY is sent only where the host qualifies,
   * and otherwise fails as a lost primary (25006) and sends the next query to the search. The
   * subscriptions' probes call this every two seconds, which bounds how long a switchover goes unseen.
   */
  async notify(channel: string, message: string): Promise<void> {
    const pool = await this.primary();
    const { rowCount } = await pool.query(`SELECT pg_notify($1, $2) WHERE ${this.qualifying}`, [channel, message]).catch((err: unknown) => this.noticed(pool, err));
    if (rowCount !== 1) this.noticed(pool, Object.assign(new Error('the PostgreSQL host in use is no longer the primary'), { code: '25006' }));
  }

  /** @inheritdoc */
  async currentUri(): Promise<string> {
    await this.primary();
    return this.uriOf((this.current as { host: HostPort }).host);
  }

  /** @inheritdoc */
  async end(): Promise<void> {
    this.ended = true;
    await this.current?.pool.end();
    this.current = undefined;
  }
}
