import type { StateStore, Subscription } from './state-store';

/** What a cache does when its channel speaks. */
export interface AnnouncementHandlers {
  /** Something it may hold changed: the message of the announcement says what. */
  changed(message: string): void;
  /** The subscription was lost (messages may have been missed): forget everything. */
  lost(): void;
}

/**
 * A per-process cache's link to the state store's announcements on one channel (Redis pub/sub,
 * PostgreSQL NOTIFY, in-process otherwise). While the subscription is live, what the cache read
 * from a store stays true until an announcement says otherwise; without a live one, nothing may be
 * answered from memory. A store read that overlapped an announcement may predate it and is not
 * kept: take a `mark()` before the read and ask `keep(mark)` after it.
 */
export class CacheAnnouncements {
  /** Counts announcements (and local changes), so a read can tell whether one overlapped it. */
  private epoch = 0;
  private readonly subscription: Subscription | undefined;

  /**
   * @param store - the state store that carries the announcements.
   * @param channel - the channel's name.
   * @param handlers - what the cache forgets on a message or a lost subscription.
   */
  constructor(store: StateStore, channel: string, handlers: AnnouncementHandlers) {
    this.subscription = store.subscribe?.(
      channel,
      (message) => {
        this.epoch++;
        handlers.changed(message);
      },
      () => {
        this.epoch++;
        handlers.lost();
      },
    );
  }

  /** Whether memory can be trusted now. */
  get live(): boolean {
    return this.subscription?.live === true;
  }

  /** Taken before a store read; `-1` when the answer could not be kept anyway. */
  mark(): number {
    return this.live ? this.epoch : -1;
  }

  /** Whether a read started at `mark` may be cached: nothing was announced since, and still live. */
  keep(mark: number): boolean {
    return mark !== -1 && mark === this.epoch && this.live;
  }

  /** A change made in this process: reads in flight must not cache what they found. */
  changedHere(): void {
    this.epoch++;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
