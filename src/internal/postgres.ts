import type { Client, Pool, PoolClient, QueryResultRow } from 'pg';
import type { Subscription } from './subscription';
import { configError } from '../base/errors';
import { parseHostList, type HostPort } from './host-list';
import { callDeadline, commandLimitOf } from './command-limits';
import { loadOptional } from './optional';
import { listenOnPrimary } from './pg-listen';
import { FailoverPool, type PgPool, type TargetSessionAttrs } from './pg-primary';
import { SharedHandles, type Lease } from './shared-handles';

/** How long callers wait for a transaction when no store guard said (the default `storeTimeout`). */
const DEFAULT_COMMAND_LIMIT_MS = 5000;

/** A `postgres://` URI split into what the driver gets and authgate's own parameters. */
export interface PgTarget {
  /** The URI for the driver, without authgate's parameters. */
  clientUri: string;
  /** The schema authgate's tables live in. */
  schema: string;
  /** The most connections of the pool. */
  poolMax: number;
  /** The longest a statement may run, in ms (the server cancels it). */
  statementTimeout: number;
  /** The hosts of the URI, in order (one, or several of a primary and its standbys). */
  hosts: HostPort[];
  /** What a host must be to be used when there are several (libpq's `target_session_attrs`). */
  targetSessionAttrs: TargetSessionAttrs;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function whole(params: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw configError(`postgres store URI: ${name} must be a whole number from 1 to ${max}`);
  return n;
}

const SESSION_ATTRS: readonly string[] = ['read-write', 'primary'];

/**
 * Reads `postgres://user:pass@host:5432/db?schema=app&pool_max=10&statement_timeout=5000`
 * (also `postgresql://`). `schema` (default `public`), `pool_max` (default 10) and
 * `statement_timeout` in ms (default 5000) are authgate's and removed before the driver sees the URI.
 * Several hosts (`postgres://h1:5432,h2:5432/db`, as libpq writes them) are a primary and its
 * standbys: the one used is the first that takes writes (`target_session_attrs=read-write`, the
 * default) or is not in recovery (`primary`), found again after a failover.
 */
export function parsePgUri(uri: string): PgTarget {
  let url: URL;
  let hosts: HostPort[];
  try {
    ({ hosts, first: url } = parseHostList(uri, 'postgres store URI', 5432));
  } catch {
    throw configError(`postgres store URI ${JSON.stringify(uri.slice(0, 80))} is malformed; use postgres://user@host:5432/db?schema=app`);
  }
  const attrs = url.searchParams.get('target_session_attrs') ?? 'read-write';
  if (!SESSION_ATTRS.includes(attrs)) throw configError('postgres store URI: target_session_attrs is read-write or primary (authgate writes)');
  url.searchParams.delete('target_session_attrs');
  const schema = url.searchParams.get('schema') ?? 'public';
  if (!NAME.test(schema)) throw configError('postgres store URI: schema must be a lower-case SQL name (letters, digits, _)');
  const target = { schema, poolMax: whole(url.searchParams, 'pool_max', 10, 1000), statementTimeout: whole(url.searchParams, 'statement_timeout', 5000, 3_600_000) };
  for (const name of ['schema', 'pool_max', 'statement_timeout']) url.searchParams.delete(name);
  return { clientUri: url.toString(), ...target, hosts, targetSessionAttrs: attrs as TargetSessionAttrs };
}

/** A query on the connection of a {@link PgDatabase.transaction}. */
export type PgQuery = <R extends QueryResultRow>(text: string, params?: unknown[]) => Promise<{ rows: R[]; rowCount: number }>;

/** One version of a family's tables: a statement, or code that runs on the migration's connection (copying old rows, say). */
export type PgMigrationStep = string | ((query: PgQuery) => Promise<void>);

/** The {@link PgQuery} of one connection. */
function queryOn(client: PoolClient): PgQuery {
  return async <R extends QueryResultRow>(text: string, params: unknown[] = []) => {
    const r = await client.query<R>(text, params);
    return { rows: r.rows, rowCount: r.rowCount ?? 0 };
  };
}

/** A pool shared by every store on one database, and the migrations run through it. */
interface SharedPool {
  pool: PgPool;
  /** By `<schema>:<family>`: each family's migrations run once per pool. */
  migrated: Map<string, Promise<void>>;
}

/** One pool per database URI (with its pool size and statement timeout), whatever the families and schemas on it. */
const pools = new SharedHandles<SharedPool>((shared) => shared.pool.end());

function openPool({ clientUri, poolMax, statementTimeout, hosts, targetSessionAttrs }: PgTarget): SharedPool {
  const config = { max: poolMax, statement_timeout: statementTimeout, connectionTimeoutMillis: 5000 };
  if (hosts.length > 1) return { pool: new FailoverPool(new URL(clientUri), hosts, targetSessionAttrs, config), migrated: new Map() };
  const { Pool: PgPoolClass } = loadOptional<typeof import('pg')>('pg', 'a postgres:// store');
  const pool: Pool = new PgPoolClass({ ...config, connectionString: clientUri });
  // A connection lost while idle is dropped by the pool; the next query gets a fresh one.
  pool.on('error', () => undefined);
  const notify = async (channel: string, message: string): Promise<void> => void (await pool.query('SELECT pg_notify($1, $2)', [channel, message]));
  return { pool: Object.assign(pool, { currentUri: async () => clientUri, notify }), migrated: new Map() };
}

/** How many PostgreSQL pools are open in this process (one per database URI in use). */
export function openPgPools(): number {
  return pools.size;
}

/** How authgate names things in a PostgreSQL schema: no pool, no package (a printed script needs only this). */
export class PgNames {
  /** The schema, quoted for SQL. */
  readonly schema: string;

  /** @param uri - see {@link parsePgUri}. */
  constructor(uri: string) {
    this.schema = `"${parsePgUri(uri).schema}"`;
  }

  /** The quoted name of table `authgate_<name>`. */
  table(name: string): string {
    return `${this.schema}."authgate_${name}"`;
  }

  /** The statements that make the schema and the table recording which versions are applied. */
  migrationsTable(): string[] {
    return [
      `CREATE SCHEMA IF NOT EXISTS ${this.schema}`,
      `CREATE TABLE IF NOT EXISTS ${this.table('migrations')} (family text NOT NULL, version integer NOT NULL, applied timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (family, version))`,
    ];
  }
}

/**
 * One PostgreSQL database as authgate's stores use it: a pool (the optional package `pg`) shared by
 * every store on the same URI, tables named `authgate_<name>` in the URI's schema, and versioned
 * migrations that run once per family under an advisory lock on the schema, so instances starting
 * together do not race.
 */
export class PgDatabase extends PgNames {
  private readonly pool: PgPool;
  private readonly lease: Lease<SharedPool>;
  private readonly target: PgTarget;

  /** @param uri - see {@link parsePgUri}. */
  constructor(private readonly uri: string) {
    super(uri);
    const target = parsePgUri(uri);
    this.target = target;
    this.lease = pools.acquire(JSON.stringify([target.clientUri, target.poolMax, target.statementTimeout]), () => openPool(target));
    this.pool = this.lease.handle.pool;
  }

  /** Runs a statement. */
  async query<R extends QueryResultRow>(text: string, params: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
    const result = await this.pool.query<R>(text, params);
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  /** Runs a statement prepared once per connection under `name` (the same name must always be the same text). */
  async prepared<R extends QueryResultRow>(statement: { name: string; text: string }, params: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
    const result = await this.pool.query<R>({ ...statement, values: params });
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  /**
   * Brings `family`'s tables to the last of `steps` (each step one version, applied in order,
   * once): the first call runs it, later calls wait for it. Idempotent and safe across processes.
   */
  migrate(family: string, steps: readonly PgMigrationStep[]): Promise<void> {
    const migrated = this.lease.handle.migrated;
    const key = `${this.target.schema}:${family}`;
    let done = migrated.get(key);
    if (done === undefined) {
      done = this.runMigrations(family, steps).catch((err: unknown) => {
        migrated.delete(key);
        throw err;
      });
      migrated.set(key, done);
    }
    return done;
  }

  /**
   * Runs `work` on one connection of the pool, in a transaction (committed when it resolves,
   * rolled back when it throws). While it is out of the pool, a connection that dies between two
   * queries emits 'error' on the client, where nobody listens (the pool only listens to idle ones):
   * that is caught here, and a connection that failed (or could not roll back) is dropped rather
   * than returned.
   */
  private async inTransaction<T>(work: (client: PoolClient) => Promise<T>, bounded = true): Promise<T> {
    const deadline = callDeadline() ?? Date.now() + (commandLimitOf(this.uri) ?? DEFAULT_COMMAND_LIMIT_MS);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error): void => void (broken = err);
    client.on('error', onError);
    // A transaction that outlived its caller (answered 503 meanwhile) must not commit: the server
    // ends one whose client falls silent inside it for longer than that (a partition holding its
    // next statement), this side rolls back one that resumes too late, and the COMMIT travels with
    // a check of the server's clock, so one held on its way does nothing when it arrives.
    const late = (): void => {
      if (bounded && Date.now() > deadline) throw new Error('the transaction outlived the store time limit: rolled back');
    };
    try {
      late();
      await client.query(bounded ? `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${Math.max(1, Math.ceil(deadline - Date.now()))}` : 'BEGIN');
      // now() is when BEGIN ran on the server, before this answer came back: the server's deadline
      // is at least now() plus what is left here.
      const left = Math.floor(deadline - Date.now());
      late();
      const result = await work(client);
      late();
      await client.query(bounded ? `SELECT 1 / (CASE WHEN clock_timestamp() > now() + interval '${left} milliseconds' THEN 0 ELSE 1 END); COMMIT` : 'COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollback: unknown) => void (broken ??= rollback instanceof Error ? rollback : new Error('rollback failed')));
      throw err;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  private async runMigrations(family: string, steps: readonly PgMigrationStep[]): Promise<void> {
    // Unbounded: ten instances starting at once wait in turn for the schema's lock, as they should.
    await this.inTransaction(async (client) => {
      // One lock per schema: the schema and the migrations table are shared by every family.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`authgate:${this.schema}`]);
      for (const statement of this.migrationsTable()) await client.query(statement);
      const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${this.table('migrations')} WHERE family = $1`, [family]);
      for (let version = (rows[0]?.v ?? 0) + 1; version <= steps.length; version++) {
        const step = steps[version - 1] as PgMigrationStep;
        if (typeof step === 'string') await client.query(step);
        else await step(queryOn(client));
        await client.query(`INSERT INTO ${this.table('migrations')} (family, version) VALUES ($1, $2)`, [family, version]);
      }
    }, false);
  }

  /** Runs `work` in one transaction on one connection (committed when it resolves, rolled back when it throws). */
  async transaction<T>(work: (query: PgQuery) => Promise<T>): Promise<T> {
    return this.inTransaction((client) => work(queryOn(client)));
  }

  /** The NOTIFY channel for `name`: one per schema, so apps on other schemas of the database hear nothing. */
  private channel(name: string): string {
    return `authgate_${this.target.schema}_${name}`.slice(0, 63);
  }

  /** Sends `message` to every {@link PgDatabase.listen}er of channel `name` (NOTIFY, delivered when sent). */
  async notify(name: string, message: string): Promise<void> {
    await this.pool.notify(this.channel(name), message);
  }

  /**
   * LISTENs on channel `name` on a connection of its own, outside the pool. A lost connection calls
   * `onGap` and is made again (every second until it works), then `onGap` runs once more. When the
   * URI names several hosts, the connection is on the primary of the moment and the subscription is
   * probed (see `listenOnPrimary`): a primary can lose its rank and keep its connections.
   */
  listen(name: string, onMessage: (message: string) => void, onGap: () => void): Subscription {
    const channel = this.channel(name);
    if (this.pool instanceof FailoverPool) return listenOnPrimary(this.pool, channel, onMessage, onGap);
    const { Client: PgClient } = loadOptional<typeof import('pg')>('pg', 'a postgres:// store');
    let client: Client | undefined;
    let live = false;
    let closed = false;
    let retry: NodeJS.Timeout | undefined;
    const lost = (): void => {
      if (client === undefined) return;
      const dead = client;
      client = undefined;
      live = false;
      onGap();
      void dead.end().catch(() => undefined);
      if (!closed) retry = setTimeout(connect, 1000).unref();
    };
    const connect = (): void => {
      this.pool.currentUri().then(
        (uri) => {
          if (closed) return;
          const next = new PgClient({ connectionString: uri, connectionTimeoutMillis: 5000 });
          client = next;
          next.on('error', lost);
          next.on('end', lost);
          next.on('notification', (n) => {
            if (n.channel === channel && n.payload !== undefined) onMessage(n.payload);
          });
          next
            .connect()
            .then(() => next.query(`LISTEN "${channel}"`))
            .then(() => {
              if (closed || client !== next) return;
              live = true;
              onGap();
            }, lost);
        },
        () => {
          if (!closed) retry = setTimeout(connect, 1000).unref();
        },
      );
    };
    connect();
    return {
      get live() {
        return live;
      },
      close: async () => {
        closed = true;
        live = false;
        clearTimeout(retry);
        const last = client;
        client = undefined;
        await last?.end().catch(() => undefined);
      },
    };
  }

  /** Gives the pool back; the last store on the database ends it. */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
