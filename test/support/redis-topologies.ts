import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TrackedChild } from './children';
import { eventually } from './eventually';
import { freePort, startChild } from './servers';
import { startPausableProxy, type PausableProxy } from './tcp-proxy';

const run = promisify(execFile);
const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';
const REDIS_CLI = process.env.REDIS_CLI ?? '/usr/bin/redis-cli';

/** One redis-server (or sentinel) process of a topology, on its own port. */
export interface RedisNodeProcess {
  port: number;
  /** Kills the process (SIGKILL: a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same arguments. */
  start(): Promise<void>;
}

/** A topology of real Redis processes started for a test. */
export interface RedisTopology {
  /** The URI authgate is given. */
  uri: string;
  /** Stops every process and removes the files. */
  destroy(): Promise<void>;
}

/** Runs redis-cli against a port; its answer, trimmed. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(REDIS_CLI, ['-h', '127.0.0.1', '-p', String(port), ...args]);
  return stdout.trim();
}

/** Starts a process; `dir` is its working folder (a replica writes the master's snapshot there). */
async function node(dir: string, args: (port: number) => string[], ready: string, what: string, given?: number): Promise<RedisNodeProcess> {
  const port = given ?? (await freePort());
  let running: TrackedChild | undefined;
  const start = async (): Promise<void> => {
    running = await startChild(REDIS_SERVER, [...args(port), '--dir', dir], ready, what, 60_000);
  };
  await start();
  return { port, start, kill: async () => void (await running?.stop()) };
}

const COMMON = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'];

/** A master, its replicas and the sentinels watching them (master name `authgate`). */
export interface SentinelSet extends RedisTopology {
  master: RedisNodeProcess;
  replicas: RedisNodeProcess[];
  sentinels: RedisNodeProcess[];
  /** The port of the master as the sentinels see it now. */
  masterPort(): Promise<number>;
  /** With `proxied`: the proxy the sentinels (and so the clients) reach the master through. */
  proxy?: PausableProxy;
}

/**
 * Starts one master, `replicas` replicas and `sentinels` sentinels (quorum: a majority) that call a
 * master down after 1 s without an answer. The URI is `redis+sentinel://` over the sentinels.
 */
export async function startSentinelSet(options: { replicas?: number; sentinels?: number; proxied?: boolean; downAfterMs?: number } = {}): Promise<SentinelSet> {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-sentinel-'));
  const folder = async (name: string): Promise<string> => {
    await mkdir(join(dir, name));
    return join(dir, name);
  };
  const master = await node(await folder('master'), (port) => ['--port', String(port), ...COMMON], 'Ready to accept connections', 'redis master');
  const replicas: RedisNodeProcess[] = [];
  for (let i = 0; i < (options.replicas ?? 1); i++) {
    replicas.push(
      await node(await folder(`replica-${i}`), (port) => ['--port', String(port), ...COMMON, '--replicaof', '127.0.0.1', String(master.port)], 'Ready to accept connections', 'redis replica'),
    );
  }
  await eventually(async () => {
    for (const r of replicas) if (!(await redisCli(r.port, 'INFO', 'replication')).includes('master_link_status:up')) throw new Error('replica not synced');
  }, 30_000);
  // Proxied, the sentinels name the master by its proxy: every client's commands cross it, and a
  // pause longer than down-after would start a failover.
  const proxy = options.proxied === true ? await startPausableProxy(master.port) : undefined;
  const count = options.sentinels ?? 3;
  const sentinels: RedisNodeProcess[] = [];
  for (let i = 0; i < count; i++) {
    const config = join(dir, `sentinel-${i}.conf`);
    await writeFile(
      config,
      [
        `sentinel monitor authgate 127.0.0.1 ${proxy?.port ?? master.port} ${Math.floor(count / 2) + 1}`,
        `sentinel down-after-milliseconds authgate ${options.downAfterMs ?? 1000}`,
        'sentinel failover-timeout authgate 3000',
        'sentinel parallel-syncs authgate 1',
        '',
      ].join('\n'),
    );
    sentinels.push(await node(dir, (port) => [config, '--sentinel', '--port', String(port), '--bind', '127.0.0.1'], '+monitor master', 'redis sentinel'));
  }
  // Every sentinel must know the replicas and the other sentinels before a failover can be agreed.
  await eventually(async () => {
    for (const s of sentinels) {
      const info = await redisCli(s.port, 'SENTINEL', 'MASTER', 'authgate');
      const field = (name: string): number => Number(info.split('\n')[info.split('\n').indexOf(name) + 1]);
      if (field('num-slaves') < replicas.length || field('num-other-sentinels') < count - 1) throw new Error('sentinels not settled');
    }
  }, 30_000);
  return {
    uri: `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/authgate`,
    master,
    replicas,
    sentinels,
    masterPort: async () => Number((await redisCli(sentinels[0]!.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'authgate')).split('\n')[1]),
    ...(proxy !== undefined ? { proxy } : {}),
    destroy: async () => {
      await proxy?.close();
      await Promise.all([master, ...replicas, ...sentinels].map((n) => n.kill()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis Cluster: masters, each with its replicas. */
export interface RedisClusterSet extends RedisTopology {
  nodes: RedisNodeProcess[];
  /** The node serving `key`'s slot now (its master). */
  masterOf(key: string): Promise<RedisNodeProcess>;
  /** With `proxied`: the proxies every node announces for its clients (the cluster's own bus is direct). */
  proxies?: PausableProxy[];
}

/**
 * Starts a Redis Cluster of `masters` masters with `replicasPerMaster` replicas each (node timeout
 * 1 s, so a killed master's replica takes over within seconds). The URI is `redis+cluster://` over
 * every node.
 */
export async function startRedisCluster(options: { masters?: number; replicasPerMaster?: number; proxied?: boolean } = {}): Promise<RedisClusterSet> {
  const dir = await mkdtemp(join(tmpdir(), 'authgate-cluster-'));
  const total = (options.masters ?? 3) * (1 + (options.replicasPerMaster ?? 1));
  const nodes: RedisNodeProcess[] = [];
  const proxies: PausableProxy[] = [];
  for (let i = 0; i < total; i++) {
    const port = await freePort();
    // Proxied, a node tells clients (CLUSTER SLOTS, MOVED) to reach it through its proxy.
    const proxy = options.proxied === true ? await startPausableProxy(port) : undefined;
    if (proxy !== undefined) proxies.push(proxy);
    const bus = proxy === undefined ? undefined : String(await freePort());
    const announce = bus === undefined ? [] : ['--cluster-port', bus, '--cluster-announce-ip', '127.0.0.1', '--cluster-announce-port', String(proxy?.port), '--cluster-announce-bus-port', bus];
    nodes.push(
      await node(
        dir,
        () => ['--port', String(port), ...COMMON, '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '1000', ...announce],
        'Ready to accept connections',
        'redis cluster node',
        port,
      ),
    );
  }
  await run(REDIS_CLI, ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(options.replicasPerMaster ?? 1), '--cluster-yes']);
  await eventually(async () => {
    for (const n of nodes) if (!(await redisCli(n.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) throw new Error('cluster not ready');
    // A replica that never synced would not take over (its data counts as too old).
    for (const n of nodes) {
      const replication = await redisCli(n.port, 'INFO', 'replication');
      if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) throw new Error('replica not synced');
    }
  }, 30_000);
  const byPort = (port: number): RedisNodeProcess => nodes.find((n) => n.port === port) ?? nodes[proxies.findIndex((p) => p.port === port)]!;
  return {
    uri: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    ...(options.proxied === true ? { proxies } : {}),
    masterOf: async (key) => {
      let slot = Number.NaN;
      for (const n of nodes) if (Number.isNaN(slot)) slot = Number(await redisCli(n.port, 'CLUSTER', 'KEYSLOT', key).catch(() => Number.NaN));
      for (const n of nodes) {
        const table = await redisCli(n.port, 'CLUSTER', 'NODES').catch(() => '');
        for (const line of table.split('\n')) {
          const [, address, flags, , , , , state, ...ranges] = line.split(' ');
          if (!flags?.includes('master') || flags.includes('fail') || state !== 'connected') continue;
          const serves = ranges.some((r) => {
            const [from, to] = r.split('-').map(Number);
            return from! <= slot && slot <= (to ?? from!);
          });
          if (serves) return byPort(Number(address!.split('@')[0]!.split(':')[1]));
        }
        if (table !== '') break;
      }
      throw new Error(`no master serves slot ${slot}`);
    },
    destroy: async () => {
      await Promise.all(proxies.map((p) => p.close()));
      await Promise.all(nodes.map((n) => n.kill()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a topology on first use and stops it after the file's tests (call at the top of a test file):
 * the contract and the failover suites of one file share one set of processes.
 */
export function sharedTopology<T extends RedisTopology>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  afterAll(async () => {
    if (started) await (await started).destroy();
  });
  return () => (started ??= start());
}
