import type { MaybePromise } from '../hooks';
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
}

/**
 * The default {@link RefreshCache}: in memory, bounded in entries and time, oldest dropped first.
 */
export class MemoryRefreshCache implements RefreshCache {
  private readonly entries = new Map<string, { refreshed: RefreshedToken; until: number }>();

  /**
   * @param maxEntries - the most tokens kept. @default 10000
   * @param ttlMs - how long an entry is served. @default 60000
   */
  constructor(
    private readonly maxEntries = 10_000,
    private readonly ttlMs = 60_000,
  ) {}

  /** The cached successor, while it is fresh. */
  get(oldToken: string): RefreshedToken | undefined {
    const entry = this.entries.get(oldToken);
    if (entry === undefined) return undefined;
    if (entry.until < Date.now()) {
      this.entries.delete(oldToken);
      return undefined;
    }
    return entry.refreshed;
  }

  /** Stores a successor, dropping the oldest entry when full. */
  set(oldToken: string, refreshed: RefreshedToken): void {
    this.entries.delete(oldToken);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(oldToken, { refreshed, until: Date.now() + this.ttlMs });
  }

  /** How many entries are kept now. */
  get size(): number {
    return this.entries.size;
  }
}
