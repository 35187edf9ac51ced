import { acquireRedisConnection, createRedisClient, parseRedisUri, type RedisCommands, type RedisConnection, type RedisTarget } from '../../internal/redis';
import type { Lease } from '../../internal/shared-handles';
import type { Subscription } from '../../core/state/state-store';
import { BaseStateStore, type StateEntry } from '../../core/state/base-state-store';
import { probedSubscription } from '../../internal/probed-subscription';
import { configError } from '../../base/errors';

/**
 * The start of every script that changes something: ARGV[1] is the command's deadline in the
 * server's clock, and a command that reaches the server after it (held by a partition, say, while
 * its caller was answered 503) does nothing.
 */
const ON_TIME =
  "local t = redis.call('TIME') if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[1]) then return redis.error_reply('LATE this command reached the server after its caller stopped waiting: it did nothing') end ";

/** SET with its time to live. */
const WRITE = `${ON_TIME}return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])`;
/** SET NX with its time to live: 'OK', or nil when the key is there. */
const WRITE_IF_ABSENT = `${ON_TIME}return redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[3])`;
/** GETDEL: the value taken, or nil. */
const TAKE = `${ON_TIME}return redis.call('GETDEL', KEYS[1])`;
/** INCR that starts a missing counter with its time to live, in one step on the server. */
const INCREMENT = `${ON_TIME}local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return n`;
/** HSET of one member, and the group's expiry pushed out to the member's when that is later. */
const SET_MEMBER = `${ON_TIME}redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end return 1`;
/** HDEL of one member. */
const REMOVE_MEMBER = `${ON_TIME}return redis.call('HDEL', KEYS[1], ARGV[2])`;
/** The server's clock. */
const SERVER_TIME = "return redis.call('TIME')";
/** How often the server's clock is read again (a clock that is set, a failover to another server). */
const CLOCK_CHECK_MS = 30_000;

/** How long after a reconnect a subscription is trusted again (its SUBSCRIBE went out first on the new connection). */
const RESUBSCRIBE_SETTLE_MS = 100;

/** A member's field value: its expiry in ms since the epoch, a space, its JSON. */
const packMember = (entry: StateEntry): string => `${entry.until} ${entry.value}`;

/**
 * State in Redis, shared by every instance: one server (`redis://host:6379/0?prefix=app:`), a
 * master found through Sentinel (`redis+sentinel://s1:26379,s2:26379/mymaster`) or a Cluster
 * (`redis+cluster://n1:6379,n2:6379`); `rediss` for TLS. Redis expires entries itself;
 * `setIfAbsent` is `SET NX PX`, `take` is `GETDEL`, counters are `INCR` + `PEXPIRE` in one script;
 * a group is a hash. Every command touches one key, so nothing has to share a Cluster slot.
 * `publish`/`subscribe` are Redis pub/sub (sharded on a Cluster), on a connection of their own.
 * A command is never sent twice, and does nothing after its deadline: every change is a script
 * that first compares the server's clock with the time its caller stops waiting, so a command held
 * by a partition and delivered after its caller was answered 503 changes nothing.
 */
export class RedisStateStore extends BaseStateStore {
  private readonly connection: Lease<RedisConnection>;
  private readonly prefix: string;
  private readonly target: RedisTarget;
  private readonly subscriptions = new Set<Subscription>();
  /** How long the callers of a command wait for it (the store guard's time limit). */
  private commandLimitMs = 5000;
  /** The server's clock minus this process's, and when and how precisely it was read. */
  private clock: { offset: number; error: number; read: number } | undefined;

  /** @param uri - `redis://`, `redis+sentinel://` or `redis+cluster://` (`rediss` for TLS) with an optional `prefix` (default `authgate:`); every parameter is in the stores guide. */
  constructor(uri: string) {
    super();
    this.target = parseRedisUri(uri);
    this.prefix = this.target.prefix;
    this.connection = acquireRedisConnection(this.target);
  }

  private ready(): Promise<RedisCommands> {
    return this.connection.handle.commands();
  }

  /**
   * Told by the store guard how long callers wait for a command: a command that reaches the server
   * later than that (after its caller was answered 503) does nothing, so a 503 means nothing changed.
   */
  limitCommandsTo(ms: number): void {
    // A write then waits for its replicas: that wait must end well before the callers stop waiting,
    // or a change that was made would be answered 503.
    if (this.target.waitReplicas > 0 && this.target.waitTimeout * 2 >= ms)
      throw configError(`redis: wait_timeout (${this.target.waitTimeout} ms) must stay under half of storeTimeout (${ms} ms): lower it, or raise storeTimeout`);
    this.commandLimitMs = ms;
  }

  /** The deadline, in the server's clock, of a command whose caller started waiting at `started`. */
  private async deadline(key: string, started: number): Promise<string> {
    if (this.clock === undefined || Date.now() - this.clock.read > CLOCK_CHECK_MS) {
      const client = await this.ready();
      const before = Date.now();
      const [seconds, micros] = (await client.eval(SERVER_TIME, { keys: [key] })) as [string, string];
      const after = Date.now();
      // A slow reading (a network that stalls) says too little of the server's clock: read again next time.
      if (after - before > this.commandLimitMs / 2) throw new Error(`the Redis server's clock took ${after - before} ms to read`);
      this.clock = { offset: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (before + after) / 2, error: after - before, read: after };
    }
    // Early rather than late by the clock reading's uncertainty: the caller may never be answered 503 for a change that ran.
    return String(Math.floor(started + this.clock.offset + this.commandLimitMs - this.clock.error - 20));
  }

  private ttl(entry: StateEntry, now: number): number {
    return Math.max(1, Math.ceil(entry.until - now));
  }

  /** Runs a change script on `key` with its deadline first; a late refusal makes the next change read the server's clock again. */
  private async change(script: string, key: string, started: number, args: readonly string[]): Promise<unknown> {
    const client = await this.ready();
    const deadline = await this.deadline(key, started);
    try {
      return await client.eval(script, { keys: [key], arguments: [deadline, ...args] });
    } catch (err) {
      if (String((err as Error | undefined)?.message).startsWith('LATE')) this.clock = undefined;
      throw err;
    }
  }

  /** Waits for the replicas to have a write to `fullKey` (see {@link RedisConnection.confirm}). */
  private confirm(fullKey: string): Promise<void> {
    return this.connection.handle.confirm(fullKey);
  }

  protected override async write(key: string, entry: StateEntry): Promise<void> {
    const started = Date.now();
    const fullKey = this.prefix + key;
    await this.change(WRITE, fullKey, started, [entry.value, String(this.ttl(entry, Date.now()))]);
    await this.confirm(fullKey);
  }

  protected override async read(key: string): Promise<StateEntry | undefined> {
    const value = await (await this.ready()).get(this.prefix + key);
    return value === null ? undefined : { value: String(value), until: Number.POSITIVE_INFINITY };
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    const started = Date.now();
    const fullKey = this.prefix + key;
    const reply = await this.change(WRITE_IF_ABSENT, fullKey, started, [entry.value, String(this.ttl(entry, now))]);
    if (reply === 'OK') await this.confirm(fullKey);
    return reply === 'OK';
  }

  protected override async remove(key: string): Promise<StateEntry | undefined> {
    const started = Date.now();
    const fullKey = this.prefix + key;
    const value = await this.change(TAKE, fullKey, started, []);
    if (value !== null) await this.confirm(fullKey);
    return value === null ? undefined : { value: String(value), until: Number.POSITIVE_INFINITY };
  }

  protected override async add(key: string, fresh: StateEntry, now: number): Promise<number> {
    const started = Date.now();
    const fullKey = this.prefix + key;
    const n = await this.change(INCREMENT, fullKey, started, [String(this.ttl(fresh, now))]);
    return Number(n);
  }

  /** A group's hash: the prefix, NUL, the group (plain keys hold no NUL, so they never meet a group). */
  private groupKey(group: string): string {
    return `${this.prefix}\u0000${group}`;
  }

  protected override async writeMember(group: string, member: string, entry: StateEntry): Promise<void> {
    const now = Date.now();
    const key = this.groupKey(group);
    await this.change(SET_MEMBER, key, now, [member, packMember(entry), String(this.ttl(entry, now))]);
    await this.confirm(key);
  }

  protected override async readMembers(group: string, now: number): Promise<Array<[string, StateEntry]>> {
    const client = await this.ready();
    const all = (await client.hGetAll(this.groupKey(group))) as Record<string, string>;
    const live: Array<[string, StateEntry]> = [];
    const expired: string[] = [];
    for (const [member, packed] of Object.entries(all)) {
      const space = String(packed).indexOf(' ');
      const entry = { until: Number(String(packed).slice(0, space)), value: String(packed).slice(space + 1) };
      if (entry.until > now) live.push([member, entry]);
      else expired.push(member);
    }
    if (expired.length > 0) await client.hDel(this.groupKey(group), expired);
    return live;
  }

  protected override async removeMember(group: string, member: string): Promise<void> {
    const started = Date.now();
    const key = this.groupKey(group);
    await this.change(REMOVE_MEMBER, key, started, [member]);
    await this.confirm(key);
  }

  /** PUBLISH on the prefixed channel (SPUBLISH on a Cluster). */
  override async publish(channel: string, message: string): Promise<void> {
    this.checkKey(channel);
    await this.connection.handle.publish(this.prefix + channel, message);
  }

  /**
   * SUBSCRIBE on a connection of its own (a subscribed connection runs no other command); on
   * Sentinel and Cluster, a subscription proven live by probe messages on its own channel.
   * The clients reconnect and subscribe again by themselves; `onGap` runs when the subscription is
   * lost and when it is back.
   */
  override subscribe(channel: string, onMessage: (message: string) => void, onGap: () => void): Subscription {
    this.checkKey(channel);
    const subscription =
      this.target.layout === 'server' ? this.subscribeOnServer(channel, onMessage, onGap) : probedSubscription(this.connection.handle.pubSub(), this.prefix + channel, onMessage, onGap);
    this.subscriptions.add(subscription);
    return {
      get live() {
        return subscription.live;
      },
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  /** One server: SUBSCRIBE on a client of its own, trusted again a moment after each reconnect. */
  private subscribeOnServer(channel: string, onMessage: (message: string) => void, onGap: () => void): Subscription {
    let live = false;
    let closed = false;
    let connectedOnce = false;
    // A client of its own: it reconnects (and subscribes again) once it has connected, whatever the store's client does.
    const subscriber = createRedisClient(this.target.clientUri, () => connectedOnce && !closed);
    subscriber.on('error', () => {
      if (live) onGap();
      live = false;
    });
    subscriber.on('ready', () => {
      // The first connection goes live when its SUBSCRIBE is answered (below). After a reconnect the
      // client subscribes again first thing; live a moment later, so no message of the gap is trusted.
      if (!connectedOnce || closed) return;
      setTimeout(() => {
        if (closed || !subscriber.isReady) return;
        live = true;
        onGap();
      }, RESUBSCRIBE_SETTLE_MS).unref();
    });
    const start = (): void => {
      subscriber
        .connect()
        .then(() => subscriber.subscribe(this.prefix + channel, (message: string) => onMessage(String(message))))
        .then(
          () => {
            connectedOnce = true;
            if (closed) return;
            live = true;
            onGap();
          },
          () => {
            // The first connection failed: try again later; until then the subscription is not live.
            live = false;
            if (!closed) setTimeout(start, 1000).unref();
          },
        );
    };
    start();
    return {
      get live() {
        return live && subscriber.isReady;
      },
      close: async () => {
        closed = true;
        live = false;
        if (subscriber.isOpen) await subscriber.close().catch(() => subscriber.destroy());
      },
    };
  }

  protected override async release(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.connection.release();
  }
}
