import type { RedisClientType } from '@redis/client';
import { configError } from '../base/errors';
import { parseHostList, type HostPort } from './host-list';
import { loadOptional } from './optional';
import type { MovablePubSub } from './probed-subscription';
import { SharedHandles, type Lease } from './shared-handles';

/** How the Redis of a URI is laid out: one server, a master found through Sentinel, or a Cluster. */
export type RedisLayout = 'server' | 'sentinel' | 'cluster';

/** A Redis URI split into what the client gets and authgate's own parameters. */
export interface RedisTarget {
  layout: RedisLayout;
  /** The URI without authgate's parameters: the client's URI for one server, the key a connection is shared by. */
  clientUri: string;
  /** The sentinels (Sentinel) or the seed nodes (Cluster); the server itself otherwise. */
  nodes: HostPort[];
  /** The master's name the sentinels know (Sentinel only). */
  masterName: string;
  /** Prepended to every key. */
  prefix: string;
  /** The longest a command may wait for a master (Sentinel, Cluster) before it fails unsent, in ms. */
  commandTimeout: number;
  /** How many replicas must have a write (Redis `WAIT`) before it counts as done; 0: none. */
  waitReplicas: number;
  /** The longest a write waits for them, in ms (then it counts as done anyway: the master has it). */
  waitTimeout: number;
  /** How the data nodes are reached. */
  node: { username?: string; password?: string; database?: number; tls: boolean };
  /** How the sentinels are reached (Sentinel only). */
  sentinel: { username?: string; password?: string };
}

const PREFIX = /^[A-Za-z0-9_:.{}-]{0,64}$/;
const MASTER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const SCHEMES: Record<string, { layout: RedisLayout; tls: boolean; port: number }> = {
  'redis:': { layout: 'server', tls: false, port: 6379 },
  'rediss:': { layout: 'server', tls: true, port: 6379 },
  'redis+sentinel:': { layout: 'sentinel', tls: false, port: 26379 },
  'rediss+sentinel:': { layout: 'sentinel', tls: true, port: 26379 },
  'redis+cluster:': { layout: 'cluster', tls: false, port: 6379 },
  'rediss+cluster:': { layout: 'cluster', tls: true, port: 6379 },
};

/** authgate's parameters, removed before a client sees the URI. */
const OWN_PARAMETERS = ['prefix', 'command_timeout', 'wait_replicas', 'wait_timeout', 'sentinel_username', 'sentinel_password'];

function whole(url: URL, name: string, fallback: number, min: number, max: number): number {
  const n = Number(url.searchParams.get(name) ?? fallback);
  if (!Number.isInteger(n) || n < min || n > max) throw configError(`redis store URI: ${name} is a whole number from ${min} to ${max}`);
  return n;
}

const decoded = (part: string): string | undefined => (part === '' ? undefined : decodeURIComponent(part));

/**
 * Reads a Redis URI: one server, `redis://[user:pass@]host:6379[/db][?prefix=app:]`; a master found
 * through Sentinel, `redis+sentinel://[user:pass@]s1:26379,s2:26379/<master name>[/db]` (the user
 * and password are the data nodes'; `sentinel_username` and `sentinel_password` the sentinels');
 * a Cluster, `redis+cluster://[user:pass@]n1:6379,n2:6379` (any nodes: the rest are discovered).
 * `rediss` instead of `redis` for TLS. authgate's own parameters: `prefix` (default `authgate:`),
 * `command_timeout` (ms a command may wait for a master after a failover, default 1000),
 * `wait_replicas` (how many replicas must confirm a write, Redis `WAIT`: default 1 on Sentinel and
 * Cluster, 0 on one server) and `wait_timeout` (the most a write waits for them, default 200 ms).
 * @throws AuthError (`config`) for a malformed URI, prefix, master name or timeout.
 */
export function parseRedisUri(uri: string): RedisTarget {
  const scheme = SCHEMES[(/^[a-z+]+:/i.exec(uri)?.[0] ?? '').toLowerCase()];
  if (scheme === undefined) throw configError(`redis store URI ${JSON.stringify(uri.slice(0, 80))} is malformed; use redis://host:6379/0?prefix=app:`);
  const { hosts, first: url } = parseHostList(uri, 'redis store URI', scheme.port);
  if (url.hostname === '') throw configError('a redis:// store URI needs a host, e.g. redis://127.0.0.1:6379');
  if (scheme.layout === 'server' && hosts.length > 1) throw configError('a redis:// store URI names one server; list sentinels with redis+sentinel:// or cluster nodes with redis+cluster://');
  const prefix = url.searchParams.get('prefix') ?? 'authgate:';
  if (!PREFIX.test(prefix)) throw configError('the redis key prefix may hold letters, digits and _ : . { } - (at most 64)');
  const timeout = whole(url, 'command_timeout', 1000, 50, 60_000);
  const waitReplicas = whole(url, 'wait_replicas', scheme.layout === 'server' ? 0 : 1, 0, 16);
  const waitTimeout = whole(url, 'wait_timeout', 200, 1, 60_000);
  const [first, second] = url.pathname.split('/').filter((part) => part !== '');
  const name = scheme.layout === 'sentinel' ? (first ?? '') : '';
  if (scheme.layout === 'sentinel' && !MASTER_NAME.test(name)) throw configError('a redis+sentinel:// URI names the master after the sentinels: redis+sentinel://s1:26379,s2:26379/mymaster');
  const database = scheme.layout === 'sentinel' ? second : scheme.layout === 'server' ? first : undefined;
  if (database !== undefined && !/^\d{1,2}$/.test(database)) throw configError('redis store URI: the database is a number (redis://host:6379/0)');
  const sentinel = { username: url.searchParams.get('sentinel_username') ?? undefined, password: url.searchParams.get('sentinel_password') ?? undefined };
  for (const own of OWN_PARAMETERS) url.searchParams.delete(own);
  // Beyond one server the URI is only the key its connection is shared by: every host and the first one's URL.
  const clientUri = scheme.layout === 'server' ? url.toString() : `${hosts.map((h) => `${h.host}:${h.port}`).join(',')} ${url.toString()}`;
  return {
    layout: scheme.layout,
    clientUri,
    nodes: hosts,
    masterName: name,
    prefix,
    commandTimeout: timeout,
    waitReplicas,
    waitTimeout,
    node: { username: decoded(url.username), password: decoded(url.password), database: database === undefined ? undefined : Number(database), tls: scheme.tls },
    sentinel,
  };
}

/** The socket options every client gets: give up a connection after 5 s, retry a lost one (once there was one) with backoff. */
function socketOptions(reconnect: () => boolean, tls = false): Record<string, unknown> {
  return {
    connectTimeout: 5000,
    ...(tls ? { tls: true } : {}),
    // A new Error (not the socket's): the client tells "give up" by `instanceof Error`, which must hold in any realm.
    reconnectStrategy: (retries: number, cause: Error) => (reconnect() ? Math.min(100 * 2 ** retries, 2000) : new Error(`redis unreachable: ${cause?.message ?? 'no connection'}`)),
  };
}

/**
 * A node-redis client (the optional package @redis/client) that never holds a command back: while
 * the server is down, commands fail at once (a 503) instead of waiting in a queue and running
 * later, after the request was answered. `reconnect()` says whether a lost connection is retried
 * in the background (only once one was made; a first connection that fails fails the call).
 */
export function createRedisClient(clientUri: string, reconnect: () => boolean): RedisClientType {
  const { createClient } = loadOptional<typeof import('@redis/client')>('@redis/client', 'a redis:// store');
  return createClient({ url: clientUri, disableOfflineQueue: true, socket: socketOptions(reconnect) }) as unknown as RedisClientType;
}

/** The commands the state store sends, each on one key (so each runs on a Cluster). */
export type RedisCommands = Pick<RedisClientType, 'set' | 'get' | 'getDel' | 'eval' | 'hGetAll' | 'hDel'>;

/** The part of a Sentinel or Cluster client authgate uses. */
interface TopologyClient extends RedisCommands {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  withCommandOptions(options: { abortSignal: AbortSignal }): RedisCommands & Pick<RedisClientType, 'publish' | 'wait'> & { sPublish: RedisClientType['publish'] };
  getNodeClientForKey(key: string): Promise<RedisClientType>;
  getMasterNode(): HostPort | undefined;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  sUnsubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
}

/** How long writes go unconfirmed after too few replicas confirmed one, in ms. */
const UNCONFIRMED_PAUSE_MS = 5000;

/** The events by which a Sentinel or Cluster client tells of a lost or changed connection. */
const TROUBLE_EVENTS = ['error', 'reconnecting', 'topology-change', 'node-error', 'node-reconnecting', 'node-disconnect'];

/**
 * One connection (a client, or a Sentinel or Cluster client with its pools) per Redis URI,
 * connected on first use and shared by every store on it. A first connection that fails fails
 * the call; the next call tries again.
 */
export class RedisConnection {
  private client: RedisClientType | TopologyClient | undefined;
  private connected: Promise<unknown> | undefined;
  private everConnected = false;
  /** Until when writes are not confirmed, after one that too few replicas confirmed. */
  private unconfirmedUntil = 0;
  /** Sentinel: each subscription's own client on the master of the moment, by listener. */
  private readonly subscribers = new Map<(message: string) => void, RedisClientType>();
  /** Told when a subscriber's connection fails (Sentinel). */
  private readonly troubled = new Set<() => void>();

  /** @param target - as {@link parseRedisUri} gives it. */
  constructor(readonly target: RedisTarget) {}

  private make(): RedisClientType | TopologyClient {
    const { target } = this;
    const redis = loadOptional<typeof import('@redis/client')>('@redis/client', 'a redis:// store');
    const reconnect = (): boolean => this.everConnected;
    const node = { username: target.node.username, password: target.node.password, disableOfflineQueue: true, socket: socketOptions(reconnect, target.node.tls) };
    let client: RedisClientType | TopologyClient;
    if (target.layout === 'server') client = createRedisClient(target.clientUri, reconnect);
    else if (target.layout === 'sentinel') {
      client = redis.createSentinel({
        name: target.masterName,
        sentinelRootNodes: target.nodes,
        // A command is never sent twice: a failed one fails the request (503) instead of running again on the next master.
        maxCommandRediscovers: 0,
        scanInterval: 2000,
        nodeClientOptions: { ...node, database: target.node.database },
        sentinelClientOptions: { ...target.sentinel, socket: socketOptions(reconnect, target.node.tls) },
      } as Parameters<typeof redis.createSentinel>[0]) as unknown as TopologyClient;
    } else {
      client = redis.createCluster({
        rootNodes: target.nodes.map((n) => ({ socket: { host: n.host, port: n.port } })),
        defaults: node,
        // Look for the new master half a second after a node's connection is lost (the default waits 5 s).
        topologyRefreshOnReconnectionAttemptStrategy: 500,
      } as Parameters<typeof redis.createCluster>[0]) as unknown as TopologyClient;
    }
    // Errors surface on the calls (answered 503); the clients reconnect by themselves.
    (client as TopologyClient).on('error', () => undefined);
    return client;
  }

  private async ready(): Promise<RedisClientType | TopologyClient> {
    this.client ??= this.make();
    const client = this.client;
    this.connected ??= client.connect().then(
      () => {
        this.everConnected = true;
      },
      (err: unknown) => {
        this.connected = undefined;
        this.client = undefined;
        void Promise.resolve(client.destroy()).catch(() => undefined);
        throw err;
      },
    );
    await this.connected;
    return client;
  }

  /**
   * The client to send one operation's commands on. On Sentinel and Cluster each command carries a
   * deadline: one still waiting for a master when it passes fails unsent (it never runs after
   * the request was answered).
   */
  async commands(): Promise<RedisCommands> {
    const client = await this.ready();
    if (this.target.layout === 'server') return client as RedisClientType;
    return (client as TopologyClient).withCommandOptions({ abortSignal: AbortSignal.timeout(this.target.commandTimeout) });
  }

  /**
   * Waits until `waitReplicas` replicas have the writes sent so far on the connection that wrote
   * `key` (Redis `WAIT`, at most `waitTimeout` ms): what a promoted replica must not lose (a
   * revocation, a used one-shot token) is on a replica before the request is answered.
   */
  async confirm(key: string): Promise<void> {
    const { waitReplicas, waitTimeout, layout } = this.target;
    if (waitReplicas === 0 || Date.now() < this.unconfirmedUntil) return;
    const client = await this.ready();
    // One connection per master: Sentinel's pool holds one, a Cluster one per node.
    let confirmed: number;
    if (layout === 'cluster') confirmed = await (await (client as TopologyClient).getNodeClientForKey(key)).wait(waitReplicas, waitTimeout);
    else if (layout === 'sentinel')
      confirmed = await (client as TopologyClient).withCommandOptions({ abortSignal: AbortSignal.timeout(this.target.commandTimeout + waitTimeout) }).wait(waitReplicas, waitTimeout);
    else confirmed = await (client as RedisClientType).wait(waitReplicas, waitTimeout);
    // Too few replicas (the master's are gone, say): the master alone holds writes for a while, at full speed.
    if (confirmed < waitReplicas) this.unconfirmedUntil = Date.now() + UNCONFIRMED_PAUSE_MS;
  }

  /** Sends `message` on `channel`: PUBLISH (SPUBLISH on a Cluster, where a channel lives on its slot's master). */
  async publish(channel: string, message: string): Promise<void> {
    if (this.target.layout === 'server') await ((await this.ready()) as RedisClientType).publish(channel, message);
    else await this.pubSub().publish(channel, message);
  }

  /**
   * Sentinel: subscribes `listener` on a client of its own, connected to the master the sentinels
   * name now and never reconnected (a lost connection ends it; the subscription subscribes anew,
   * on whichever master is current then).
   */
  private async subscribeOnMaster(channel: string, listener: (message: string) => void): Promise<void> {
    const master = ((await this.ready()) as TopologyClient).getMasterNode();
    if (master === undefined) throw new Error('no Redis master is known');
    const { createClient } = loadOptional<typeof import('@redis/client')>('@redis/client', 'a redis:// store');
    const { username, password, database, tls } = this.target.node;
    const client = createClient({
      username,
      password,
      database,
      socket: { host: master.host, port: master.port, connectTimeout: 5000, ...(tls ? { tls: true } : {}), reconnectStrategy: false },
    }) as unknown as RedisClientType;
    client.on('error', () => {
      for (const told of this.troubled) told();
    });
    await this.unsubscribeOnMaster(listener);
    this.subscribers.set(listener, client);
    try {
      await client.connect();
      await client.subscribe(channel, listener);
    } catch (err) {
      await this.unsubscribeOnMaster(listener);
      throw err;
    }
  }

  private async unsubscribeOnMaster(listener: (message: string) => void): Promise<void> {
    const client = this.subscribers.get(listener);
    this.subscribers.delete(listener);
    if (client !== undefined) await Promise.resolve(client.destroy()).catch(() => undefined);
  }

  /** Pub/sub on a Sentinel's master (a client per subscription) or a Cluster (sharded: a channel lives on its slot's master). */
  pubSub(): MovablePubSub {
    const sharded = this.target.layout === 'cluster';
    return {
      publish: async (channel, message) => {
        const view = (await this.ready()) as TopologyClient;
        const commands = view.withCommandOptions({ abortSignal: AbortSignal.timeout(this.target.commandTimeout) });
        return sharded ? commands.sPublish(channel, message) : commands.publish(channel, message);
      },
      subscribe: async (channel, listener) => (sharded ? ((await this.ready()) as TopologyClient).sSubscribe(channel, listener) : this.subscribeOnMaster(channel, listener)),
      unsubscribe: async (channel, listener) => {
        if (!sharded) return this.unsubscribeOnMaster(listener);
        if (this.client !== undefined) await (this.client as TopologyClient).sUnsubscribe(channel, listener);
      },
      onTrouble: (listener) => {
        const client = this.client as TopologyClient | undefined;
        for (const event of TROUBLE_EVENTS) client?.on(event, listener);
        this.troubled.add(listener);
        return () => {
          for (const event of TROUBLE_EVENTS) client?.off(event, listener);
          this.troubled.delete(listener);
        };
      },
    };
  }

  /** Closes the client, if it ever connected. */
  async close(): Promise<void> {
    await Promise.all([...this.subscribers.keys()].map((listener) => this.unsubscribeOnMaster(listener)));
    const client = this.client;
    if (this.connected === undefined || client === undefined) return;
    this.client = undefined;
    // A Sentinel or Cluster client still reconnecting to a dead node would wait for it to close: its commands have failed already.
    if (this.target.layout !== 'server') return void (await Promise.resolve(client.destroy()).catch(() => undefined));
    await client.close().catch(() => client.destroy());
  }
}

const connections = new SharedHandles<RedisConnection>((connection) => connection.close());

/** The shared connection of a Redis target; release it when the store closes. */
export function acquireRedisConnection(target: RedisTarget): Lease<RedisConnection> {
  return connections.acquire(target.clientUri, () => new RedisConnection(target));
}
