import type { RedisClientType } from '@redis/client';
import { configError } from '../core/errors';
import { loadOptional } from './optional';
import { SharedHandles, type Lease } from './shared-handles';

/** A `redis://` or `rediss://` URI split into what the client gets and authgate's key prefix. */
export interface RedisTarget {
  /** The URI for the client, without authgate's own parameters. */
  clientUri: string;
  /** Prepended to every key. */
  prefix: string;
}

const PREFIX = /^[A-Za-z0-9_:.{}-]{0,64}$/;

/**
 * Reads a `redis://[user:pass@]host:port[/db][?prefix=app:]` URI (`rediss://` for TLS). `prefix`
 * (default `authgate:`) is removed before the client sees the URI.
 * @throws AuthError (`config`) for a malformed URI or prefix.
 */
export function parseRedisUri(uri: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw configError(`redis store URI ${JSON.stringify(uri.slice(0, 80))} is malformed; use redis://host:6379/0?prefix=app:`);
  }
  if (url.hostname === '') throw configError('a redis:// store URI needs a host, e.g. redis://127.0.0.1:6379');
  const prefix = url.searchParams.get('prefix') ?? 'authgate:';
  if (!PREFIX.test(prefix)) throw configError('the redis key prefix may hold letters, digits and _ : . { } - (at most 64)');
  url.searchParams.delete('prefix');
  return { clientUri: url.toString(), prefix };
}

/**
 * A node-redis client (the optional package @redis/client) that never holds a command back: while
 * the server is down, commands fail at once (a 503) instead of waiting in a queue and running
 * later, after the request was answered. `reconnect()` says whether a lost connection is retried
 * in the background (only once one was made; a first connection that fails fails the call).
 */
export function createRedisClient(clientUri: string, reconnect: () => boolean): RedisClientType {
  const { createClient } = loadOptional<typeof import('@redis/client')>('@redis/client', 'a redis:// store');
  return createClient({
    url: clientUri,
    disableOfflineQueue: true,
    // A new Error (not the socket's): the client tells "give up" by `instanceof Error`, which must hold in any realm.
    socket: {
      connectTimeout: 5000,
      reconnectStrategy: (retries: number, cause: Error) => (reconnect() ? Math.min(100 * 2 ** retries, 2000) : new Error(`redis unreachable: ${cause?.message ?? 'no connection'}`)),
    },
  }) as unknown as RedisClientType;
}

/** One Redis client per connection URI, connected on first use, shared by every store on it. */
export class RedisConnection {
  readonly client: RedisClientType;
  private connected: Promise<unknown> | undefined;
  private everConnected = false;

  /** @param clientUri - as {@link parseRedisUri} gives it. */
  constructor(clientUri: string) {
    this.client = createRedisClient(clientUri, () => this.everConnected);
    // Errors surface on the calls (answered 503); the client reconnects by itself.
    this.client.on('error', () => undefined);
  }

  /** The client, once connected (a first connection that fails fails this call; the next call tries again). */
  async ready(): Promise<RedisClientType> {
    this.connected ??= this.client.connect().then(
      () => {
        this.everConnected = true;
      },
      (err: unknown) => {
        this.connected = undefined;
        throw err;
      },
    );
    await this.connected;
    return this.client;
  }

  /** Closes the client, if it ever connected. */
  async close(): Promise<void> {
    if (this.connected === undefined) return;
    await this.client.close().catch(() => this.client.destroy());
  }
}

const connections = new SharedHandles<RedisConnection>((connection) => connection.close());

/** The shared connection of a Redis URI; release it when the store closes. */
export function acquireRedisConnection(clientUri: string): Lease<RedisConnection> {
  return connections.acquire(clientUri, () => new RedisConnection(clientUri));
}
