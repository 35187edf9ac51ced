import { BoundedMap } from '../../internal/bounded-map';
import type { StateStore, Subscription } from './state-store';

/** How long an entry is trusted even without a message: the safety net behind the announcements. */
export const ANNOUNCED_CACHE_TTL_MS = 10 * 60_000;

/**
 * One map of an {@link AnnouncedCache}: bounded, each entry living {@link ANNOUNCED_CACHE_TTL_MS},
 * answered only while the cache's subscription is live, emptied when it is lost.
 */
export class AnnouncedMap<K, V> {
  private readonly entries: BoundedMap<K, V>;

  /**
   * @param cache - whose subscription decides whether memory may answer.
   * @param capacity - the most entries kept.
   */
  constructor(
    private readonly cache: AnnouncedCache,
    capacity: number,
  ) {
    this.entries = new BoundedMap(capacity);
  }

  /** What memory holds for `key`, while it can be trusted; else `undefined`. */
  get(key: K): V | undefined {
    return this.cache.live ? this.entries.get(key) : undefined;
  }

  /** Keeps `value` for `key`: only what a read found when {@link AnnouncedCache.keep} said so. */
  set(key: K, value: V): void {
    this.entries.set(key, value, ANNOUNCED_CACHE_TTL_MS);
  }

  /** Keeps what a store read found since `mark`, unless an announcement came in between. */
  keep(mark: number, key: K, value: V): void {
    if (this.cache.keep(mark)) this.set(key, value);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * A per-process cache of what stores hold (session states, memberships, API keys), kept true by
 * the state store's announcements on one channel (Redis pub/sub, PostgreSQL NOTIFY, in-process
 * otherwise). While the subscription is live, what a read found stays true until an announcement
 * says otherwise (or {@link ANNOUNCED_CACHE_TTL_MS} passes); a lost subscription empties every map
 * of the cache, and without a live one nothing is answered from memory. A read that overlapped an
 * announcement may predate it and is not kept: take a {@link AnnouncedCache.mark} before the read
 * and keep what it found through {@link AnnouncedMap.keep}.
 */
const subscribed = new Set<AnnouncedCache>();

/** The announcement channels of caches on `store` in this process, and whether each is live (for health checks). */
export function announcementsOn(store: StateStore): Array<{ channel: string; live: boolean }> {
  return [...subscribed].filter((cache) => cache.carriedBy(store)).map((cache) => ({ channel: cache.channel, live: cache.live }));
}

export class AnnouncedCache {
  /** Counts announcements (and local changes), so a read can tell whether one overlapped it. */
  private epoch = 0;
  private readonly subscription: Subscription | undefined;
  private readonly maps: Array<AnnouncedMap<unknown, unknown>> = [];

  /**
   * @param store - the state store that carries the announcements.
   * @param channel - the channel's name.
   * @param forget - what an announcement's message makes the cache forget (here and on every instance).
   */
  constructor(
    private readonly store: StateStore,
    /** The channel's name. */
    readonly channel: string,
    private readonly forget: (message: string) => void,
  ) {
    this.subscription = store.subscribe?.(
      channel,
      (message) => {
        this.epoch++;
        forget(message);
      },
      () => {
        this.epoch++;
        for (const map of this.maps) map.clear();
      },
    );
    if (this.subscription !== undefined) subscribed.add(this);
  }

  /** Whether `store` carries this cache's announcements. */
  carriedBy(store: StateStore): boolean {
    return this.store === store;
  }

  /** A map of this cache, holding at most `capacity` entries. */
  map<K, V>(capacity: number): AnnouncedMap<K, V> {
    const made = new AnnouncedMap<K, V>(this, capacity);
    this.maps.push(made as AnnouncedMap<unknown, unknown>);
    return made;
  }

  /** Whether memory can be trusted now. */
  get live(): boolean {
    return this.subscription?.live === true;
  }

  /** Taken before a store read; `-1` when the answer could not be kept anyway. */
  mark(): number {
    return this.live ? this.epoch : -1;
  }

  /** Whether a read started at `mark` may be kept: nothing was announced since, and still live. */
  keep(mark: number): boolean {
    return mark !== -1 && mark === this.epoch && this.live;
  }

  /** A change made in this process and announced by another part (the session registry): forgotten here at once, and reads in flight keep nothing. */
  changedHere(message: string): void {
    this.epoch++;
    this.forget(message);
  }

  /** A change made in this process: forgotten here at once, then announced to every instance. */
  async announce(message: string): Promise<void> {
    this.changedHere(message);
    await this.store.publish?.(this.channel, message);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    subscribed.delete(this);
    await this.subscription?.close();
  }
}
