import type { MaybePromise } from '../token/hooks';
import { BoundedMap } from '../../internal/bounded-map';
import type { Claims } from '../token/claims';

/** A refreshed token, kept so concurrent requests with the old token get the same new one. */
export interface RefreshedToken {
  /** The new JWT. */
  token: string;
  /** Its claims. */
  claims: Claims;
}

/** Maps an expired token to its refreshed successor. Implementations may be async and shared. */
export interface RefreshCache {
  /** The refreshed token for `oldToken`, if any. */
  get(oldToken: string): MaybePromise<RefreshedToken | undefined>;
  /** Remembers the refreshed token for `oldToken`. */
  set(oldToken: string, refreshed: RefreshedToken): MaybePromise<void>;
  /**
   * For caches shared by several instances: claims the refresh of `oldToken`; `true` for the one
   * caller (in any instance) that makes it, the others wait for it in the cache. Without it, each
   * process refreshes once.
   */
  claim?(oldToken: string): MaybePromise<boolean>;
}

/**
 * The default {@link RefreshCache}: in memory, bounded in entries and time.
 */
export class MemoryRefreshCache implements RefreshCache {
  private readonly entries: BoundedMap<string, RefreshedToken>;

  /**
   * @param maxEntries - the most tokens kept. @default 10000
   * @param ttlMs - how long an entry is served. @default 60000
   */
  constructor(
    maxEntries = 10_000,
    private readonly ttlMs = 60_000,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  /** The cached successor, while it is fresh. */
  get(oldToken: string): RefreshedToken | undefined {
    return this.entries.get(oldToken);
  }

  /** Stores a successor (the least recently used go first when full). */
  set(oldToken: string, refreshed: RefreshedToken): void {
    this.entries.set(oldToken, refreshed, this.ttlMs);
  }

  /** How many entries are kept now. */
  get size(): number {
    return this.entries.size;
  }
}
