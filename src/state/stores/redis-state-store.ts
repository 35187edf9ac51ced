import type { RedisClientType } from '@redis/client';
import { createRedisClient, parseRedisUri } from '../../internal/redis';
import { BaseStateStore, type StateEntry } from './base-state-store';

/** INCR that starts a missing counter with its time to live, in one step on the server. */
const INCREMENT = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return n";

/**
 * State in Redis, shared by every instance: `redis://host:6379/0?prefix=app:` (`rediss://` for
 * TLS). Redis expires entries itself; `setIfAbsent` is `SET NX PX`, `take` is `GETDEL`, counters
 * are `INCR` + `PEXPIRE` in one script. Every command touches one key, so it runs on Redis Cluster.
 */
export class RedisStateStore extends BaseStateStore {
  private readonly client: RedisClientType;
  private readonly prefix: string;
  private connected: Promise<unknown> | undefined;
  private everConnected = false;

  /** @param uri - `redis://` or `rediss://` with an optional `prefix` (default `authgate:`). */
  constructor(uri: string) {
    super();
    const target = parseRedisUri(uri);
    this.prefix = target.prefix;
    this.client = createRedisClient(target.clientUri, () => this.everConnected);
    // Errors surface on the calls (answered 503); the client reconnects by itself.
    this.client.on('error', () => undefined);
  }

  private async ready(): Promise<RedisClientType> {
    this.connected ??= this.client.connect().then(
      () => {
        this.everConnected = true;
      },
      (err: unknown) => {
        // The next call tries a fresh connection; nothing waits for this one.
        this.connected = undefined;
        throw err;
      },
    );
    await this.connected;
    return this.client;
  }

  private ttl(entry: StateEntry, now: number): number {
    return Math.max(1, Math.ceil(entry.until - now));
  }

  protected override async write(key: string, entry: StateEntry): Promise<void> {
    await (await this.ready()).set(this.prefix + key, entry.value, { expiration: { type: 'PX', value: this.ttl(entry, Date.now()) } });
  }

  protected override async read(key: string): Promise<StateEntry | undefined> {
    const value = await (await this.ready()).get(this.prefix + key);
    return value === null ? undefined : { value: String(value), until: Number.POSITIVE_INFINITY };
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    const reply = await (await this.ready()).set(this.prefix + key, entry.value, { condition: 'NX', expiration: { type: 'PX', value: this.ttl(entry, now) } });
    return reply === 'OK';
  }

  protected override async remove(key: string): Promise<StateEntry | undefined> {
    const value = await (await this.ready()).getDel(this.prefix + key);
    return value === null ? undefined : { value: String(value), until: Number.POSITIVE_INFINITY };
  }

  protected override async add(key: string, fresh: StateEntry, now: number): Promise<number> {
    const n = await (await this.ready()).eval(INCREMENT, { keys: [this.prefix + key], arguments: [String(this.ttl(fresh, now))] });
    return Number(n);
  }

  protected override async release(): Promise<void> {
    if (this.connected === undefined) return;
    await this.client.close().catch(() => this.client.destroy());
  }
}
