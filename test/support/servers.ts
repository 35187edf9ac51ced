import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { remember, spawnTracked, type TrackedChild } from './children';
import { freePort } from './ports';

export { freePort };

const run = promisify(execFile);

/** Where Debian's postgresql package puts the server programs. */
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

/** In CI (`AUTHGATE_REQUIRE_SERVERS=1`) a missing server fails the run instead of skipping. */
const REQUIRED = process.env.AUTHGATE_REQUIRE_SERVERS === '1';

function availability(what: string, present: boolean, install: string): jest.Describe {
  // Outside jest (the benchmarks use the start helpers) there is nothing to describe.
  if (typeof describe === 'undefined') return undefined as unknown as jest.Describe;
  if (present) return describe;
  if (REQUIRED) throw new Error(`${what} is required here (AUTHGATE_REQUIRE_SERVERS=1) but not installed: ${install}`);
  console.warn(`${what} suites skipped: ${what} is not installed (${install})`);
  return describe.skip;
}

/** Whether the optional better-sqlite3 package loads here: its native module is built for the Node that runs the tests. */
function betterSqliteLoads(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Sqlite = require('better-sqlite3') as new (path: string) => { close(): void };
    new Sqlite(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

/**
 * `describe` where the optional better-sqlite3 package loads (`sqlite://…?driver=better-sqlite3`);
 * npm may have built it for another Node than the one running the tests (.ci/run rebuilds it).
 */
export const describeBetterSqlite: jest.Describe = availability('better-sqlite3', betterSqliteLoads(), `npm rebuild better-sqlite3 with the Node that runs the tests (${process.version})`);

/** `describe` where PostgreSQL's server programs are installed, else reported as skipped with the install command. */
export const describePostgres: jest.Describe = availability('PostgreSQL', existsSync(join(PG_BIN, 'initdb')), 'apt-get install -y postgresql');

/** Where Debian's mariadb-server package puts the server and its set-up program. */
const MARIADB = process.env.MARIADBD ?? '/usr/sbin/mariadbd';
const MARIADB_INSTALL = process.env.MARIADB_INSTALL_DB ?? '/usr/bin/mariadb-install-db';

/** `describe` where MariaDB's server is installed (MySQL-compatible), else reported as skipped with the install command. */
export const describeMysql: jest.Describe = availability('MariaDB', existsSync(MARIADB) && existsSync(MARIADB_INSTALL), 'apt-get install -y mariadb-server');

/** `describe` where redis-server is installed, else reported as skipped with the install command. */
export const describeRedis: jest.Describe = availability('Redis', existsSync(REDIS_SERVER), 'apt-get install -y redis-server');

/** A private server started for the tests. */
export interface TestServer {
  /** A URI to connect with (for PostgreSQL: the `postgres` database). */
  url: string;
  /** Stops the real process (as a crash would: immediately). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

/** Runs a command as the `postgres` user when we are root (initdb refuses to run as root). */
function asPostgres(cmd: string, args: string[]): Promise<unknown> {
  const root = process.getuid?.() === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, args);
}

/**
 * Fills `target` with a copy of a data folder that `make` makes once per run (shared by the test
 * workers through AUTHGATE_TEST_TEMPLATES; making one is most of a server's start), or makes it
 * there when the run has no template folder.
 */
async function fromTemplate(name: string, target: string, make: (dir: string) => Promise<void>): Promise<void> {
  const base = process.env.AUTHGATE_TEST_TEMPLATES;
  if (!base) return make(target);
  const template = join(base, name);
  let mine = true;
  try {
    await mkdir(`${template}.lock`);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
    mine = false;
  }
  if (mine) {
    await make(template).then(
      () => writeFile(`${template}.ready`, ''),
      async (err: unknown) => {
        await writeFile(`${template}.failed`, String(err));
        throw err;
      },
    );
  } else {
    for (const until = Date.now() + 120_000; !existsSync(`${template}.ready`);) {
      if (existsSync(`${template}.failed`) || Date.now() > until) return make(target);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await run('cp', ['-a', template, target]);
}

/** Gives a folder to the postgres user (initdb and the server refuse to run as root). */
async function toPostgresUser(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  await chown(dir, Number(stdout.trim()), Number(gid.trim()));
}

/**
 * Runs the PostgreSQL data folder `data` (in `dir`) with pg_ctl on a free port, trust auth on
 * 127.0.0.1 only. pg_ctl leaves the server running on its own: it is recorded by the pid it
 * writes, until stopped.
 */
async function runPgData(dir: string, data: string): Promise<TestServer> {
  let port = await freePort();
  const opts = (): string => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let forget: () => void = () => undefined;
  const start = async (): Promise<void> => {
    await asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', data, '-o', opts(), '-l', join(dir, 'log'), '-w', 'start']);
    const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    forget = remember(pid, `postgres -D ${data}`, false);
  };
  const stop = async (): Promise<void> => {
    await asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    forget();
  };
  // A free port can be taken by another test file between its choice and the start: then another is chosen.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (err) {
      const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
      if (attempt >= 3 || !/could not bind|Address already in use/i.test(log)) throw err;
      port = await freePort();
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    restart: start,
    destroy: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts a private PostgreSQL: a fresh data folder (a copy of this run's initdb) in a temporary folder, a free port, trust auth on 127.0.0.1 only. */
export async function startPostgres(): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-pg-'));
  await toPostgresUser(dir);
  const data = join(dir, 'data');
  await fromTemplate('postgres', data, async (folder) => {
    await mkdir(folder);
    await toPostgresUser(folder);
    await asPostgres(join(PG_BIN, 'initdb'), ['-D', folder, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  });
  return runPgData(dir, data);
}

/** A streaming standby of a {@link startPostgres} server, which can be promoted to primary. */
export interface StandbyServer extends TestServer {
  /** `pg_ctl promote`: the standby leaves recovery and takes writes. */
  promote(): Promise<void>;
}

/**
 * Starts a streaming standby of the private PostgreSQL at `primaryUrl`: a copy made by
 * `pg_basebackup -R` (which writes the replication settings), on a free port of its own.
 */
export async function startStandby(primaryUrl: string): Promise<StandbyServer> {
  const primary = new URL(primaryUrl);
  const dir = await mkdtemp(join(tmpdir(), 'authgate-pg-standby-'));
  await toPostgresUser(dir);
  const data = join(dir, 'data');
  await asPostgres(join(PG_BIN, 'pg_basebackup'), ['-h', primary.hostname, '-p', primary.port, '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync']);
  const server = await runPgData(dir, data);
  return { ...server, promote: async () => void (await asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', data, '-w', 'promote'])) };
}

/** Starts `command` and waits until it prints `ready` (on stdout or stderr); a child that exits or stays silent for `ms` fails, with what it said. */
export async function startChild(command: string, args: readonly string[], ready: string, what: string, ms = 30_000): Promise<TrackedChild> {
  const running = spawnTracked(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => void running.stop().then(() => reject(new Error(`${what} did not start: ${out}`))), ms);
    const hear = (d: Buffer): void => {
      out += d.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    running.child.stdout?.on('data', hear);
    running.child.stderr?.on('data', hear);
    running.child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${out}`));
    });
  });
  return running;
}

/**
 * Starts a private redis-server on a free port, without persistence, or with `appendOnly` with an
 * append-only file synced on every write (what production should run: a restart forgets nothing).
 */
export async function startRedis(options: { appendOnly?: boolean } = {}): Promise<TestServer> {
  const port = await freePort();
  const dir = options.appendOnly ? await mkdtemp(join(tmpdir(), 'authgate-redis-')) : undefined;
  const persistence = dir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir];
  let running: TrackedChild | undefined;
  const start = async (): Promise<void> => {
    running = await startChild(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'yes'], 'Ready to accept connections', 'redis-server');
  };
  const stop = async (): Promise<void> => {
    await running?.stop();
  };
  await start();
  const destroy = async (): Promise<void> => {
    await stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  return { url: `redis://127.0.0.1:${port}`, stop, restart: start, destroy };
}

/**
 * Starts a private MariaDB (the MySQL-compatible server Debian packages): a data folder made by
 * mariadb-install-db (once per run, copied) in a temporary folder, a free port on 127.0.0.1, no grant checks (nothing
 * else can reach it), durability off for speed. Its URL names the database `authgate`.
 */
export async function startMysql(options: { bufferPoolMb?: number } = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-mariadb-'));
  const data = join(dir, 'data');
  await fromTemplate('mariadb', data, (folder) =>
    run(MARIADB_INSTALL, ['--no-defaults', `--datadir=${folder}`, '--user=root', '--auth-root-authentication-method=normal', '--skip-test-db']).then(() => undefined),
  );
  const port = await freePort();
  let running: TrackedChild | undefined;
  const start = async (): Promise<void> => {
    running = await startChild(
      MARIADB,
      [
        '--no-defaults',
        `--datadir=${data}`,
        `--socket=${join(dir, 'sock')}`,
        `--pid-file=${join(dir, 'pid')}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--user=root',
        '--skip-grant-tables',
        '--skip-log-bin',
        '--innodb-flush-log-at-trx-commit=0',
        `--innodb-buffer-pool-size=${options.bufferPoolMb ?? 32}M`,
      ],
      'ready for connections',
      'mariadbd',
      60_000,
    );
    const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
    await connection.query('CREATE DATABASE IF NOT EXISTS authgate');
    await connection.end();
  };
  const stop = async (): Promise<void> => {
    await running?.stop();
  };
  await start();
  return {
    url: `mysql://root@127.0.0.1:${port}/authgate`,
    stop,
    restart: start,
    destroy: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on a MariaDB server (for one test), and a way to drop it. */
export async function freshMysqlDatabase(url: string): Promise<{ uri: string; drop(): Promise<void> }> {
  const name = `t_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new URL(url);
  const connection = await mysql.createConnection({ host: admin.hostname, port: Number(admin.port), user: 'root' });
  await connection.query(`CREATE DATABASE ${name}`);
  await connection.end();
  return {
    uri: `${admin.protocol}//${admin.username}@${admin.host}/${name}`,
    drop: async () => {
      const c = await mysql.createConnection({ host: admin.hostname, port: Number(admin.port), user: 'root' });
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

/** One server shared by a test file: started on first use, destroyed after the file's tests. */
export function sharedServer(start: () => Promise<TestServer>): () => Promise<TestServer> {
  let started: Promise<TestServer> | undefined;
  afterAll(async () => {
    if (started) await (await started).destroy();
  });
  return () => (started ??= start());
}

/** Drops a test schema (and everything in it). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
