import type { Subscription } from '../../internal/subscription';
/** One member of a group and its value, as {@link StateStore.members} lists them. */
export interface GroupMember<T> {
  /** The member's name within its group. */
  member: string;
  /** Its value. */
  value: T;
}

export type { Subscription } from '../../internal/subscription';

/**
 * A small shared key-value store with expiry, for one-shot tokens, pending logins, the refresh
 * cache, rate limits and sessions. Values are JSON-serialisable. `setIfAbsent` and `take` are
 * atomic: of many concurrent callers (even in several processes sharing the store) exactly one
 * wins. Groups are small sets of members listed at once (the sessions of one user); each member
 * expires on its own.
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
  /** Stores `value` as `member` of `group` for `ttlMs`, replacing that member only. */
  setMember(group: string, member: string, value: unknown, ttlMs: number): Promise<void>;
  /** The unexpired members of `group`, in no particular order. */
  members<T = unknown>(group: string): Promise<Array<GroupMember<T>>>;
  /** Deletes one member of `group`; a missing one is not an error. */
  deleteMember(group: string, member: string): Promise<void>;
  /**
   * Delivers `message` to the `subscribe` listeners of `channel` in every process that shares
   * this store (Redis pub/sub, PostgreSQL NOTIFY; in-process for memory and level). Optional: a
   * store without it makes `revocationCheck: 'every-request'` read the store on every request.
   */
  publish?(channel: string, message: string): Promise<void>;
  /** Listens to `channel`; `onGap` runs whenever messages may have been missed. Optional, with `publish`. */
  subscribe?(channel: string, onMessage: (message: string) => void, onGap: () => void): Subscription;
  /** Releases resources; later calls fail. */
  close(): Promise<void>;
}
