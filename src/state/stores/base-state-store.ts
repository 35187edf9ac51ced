import { AuthError } from '../../errors';
import type { StateStore } from '../state-store';

/** The longest key accepted. */
export const MAX_STATE_KEY_LENGTH = 512;

/** A stored entry: the JSON text and the expiry time in ms since the epoch. */
export interface StateEntry {
  value: string;
  until: number;
}

/**
 * The checks every state store shares: key and TTL validation, JSON encoding, closed-store
 * errors. Subclasses keep raw entries.
 */
export abstract class BaseStateStore implements StateStore {
  private closed = false;

  /** Writes an entry, replacing any. */
  protected abstract write(key: string, entry: StateEntry): Promise<void>;
  /** Reads an unexpired entry. */
  protected abstract read(key: string, now: number): Promise<StateEntry | undefined>;
  /** Writes only when absent or expired at `now`; `true` when written. */
  protected abstract writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean>;
  /** Reads and removes an unexpired entry atomically. */
  protected abstract remove(key: string, now: number): Promise<StateEntry | undefined>;
  /** Adds 1 to a counter atomically (starting at 1, expiring at `fresh.until`); returns the new value. */
  protected abstract add(key: string, fresh: StateEntry, now: number): Promise<number>;
  /** Releases resources once. */
  protected abstract release(): Promise<void>;

  /** @inheritdoc */
  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    await this.write(this.checkKey(key), this.entry(value, ttlMs));
  }

  /** @inheritdoc */
  async get<T = unknown>(key: string): Promise<T | undefined> {
    return this.decode<T>(await this.read(this.checkKey(key), Date.now()));
  }

  /** @inheritdoc */
  async setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    return this.writeIfAbsent(this.checkKey(key), this.entry(value, ttlMs), Date.now());
  }

  /** @inheritdoc */
  async take<T = unknown>(key: string): Promise<T | undefined> {
    return this.decode<T>(await this.remove(this.checkKey(key), Date.now()));
  }

  /** @inheritdoc */
  async increment(key: string, ttlMs: number): Promise<number> {
    return this.add(this.checkKey(key), this.entry(1, ttlMs), Date.now());
  }

  /** @inheritdoc */
  async delete(key: string): Promise<void> {
    await this.remove(this.checkKey(key), Number.NEGATIVE_INFINITY);
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private checkKey(key: string): string {
    if (this.closed) throw new AuthError('unavailable', 'state store is closed');
    if (typeof key !== 'string' || key === '' || key.length > MAX_STATE_KEY_LENGTH) {
      throw new AuthError('bad_request', `state store keys are 1 to ${MAX_STATE_KEY_LENGTH} characters`);
    }
    return key;
  }

  private entry(value: unknown, ttlMs: number): StateEntry {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new AuthError('bad_request', 'state store TTL must be a positive number of ms');
    const text = JSON.stringify(value);
    if (text === undefined) throw new AuthError('bad_request', 'state store values must be JSON-serialisable');
    return { value: text, until: Date.now() + ttlMs };
  }

  private decode<T>(entry: StateEntry | undefined): T | undefined {
    return entry === undefined ? undefined : (JSON.parse(entry.value) as T);
  }
}
