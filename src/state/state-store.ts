/**
 * A small shared key-value store with expiry, for one-shot tokens, pending logins, the refresh
 * cache and rate limits. Values are JSON-serialisable. `setIfAbsent` and `take` are atomic: of
 * many concurrent callers (even in several processes sharing a mongo store) exactly one wins.
 */
export interface StateStore {
  /** Stores `value` under `key` for `ttlMs`, replacing what was there. */
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** The unexpired value, or `undefined`. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Stores only when `key` is absent or expired; `true` when it stored. */
  setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  /** Reads and deletes in one step; `undefined` when absent or expired. */
  take<T = unknown>(key: string): Promise<T | undefined>;
  /**
   * Adds 1 to the counter under `key` and returns the new value; a missing or expired counter
   * starts at 1 and lives `ttlMs` from then. Atomic, like `setIfAbsent`.
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /** Deletes; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Releases resources; later calls fail. */
  close(): Promise<void>;
}
