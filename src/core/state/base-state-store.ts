import { AuthError } from '../../base/errors';
import type { GroupMember, StateStore, Subscription } from './state-store';

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
  /** Writes one member of a group, replacing it. */
  protected abstract writeMember(group: string, member: string, entry: StateEntry): Promise<void>;
  /** The unexpired members of a group. */
  protected abstract readMembers(group: string, now: number): Promise<Array<[string, StateEntry]>>;
  /** Removes one member of a group. */
  protected abstract removeMember(group: string, member: string): Promise<void>;
  /** Releases resources once. */
  protected abstract release(): Promise<void>;

  /** Listeners of this process, by channel: how a store that no other process shares publishes. */
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

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
  async setMember(group: string, member: string, value: unknown, ttlMs: number): Promise<void> {
    await this.writeMember(this.checkKey(group), this.checkKey(member), this.entry(value, ttlMs));
  }

  /** @inheritdoc */
  async members<T = unknown>(group: string): Promise<Array<GroupMember<T>>> {
    const entries = await this.readMembers(this.checkKey(group), Date.now());
    return entries.map(([member, entry]) => ({ member, value: JSON.parse(entry.value) as T }));
  }

  /** @inheritdoc */
  async deleteMember(group: string, member: string): Promise<void> {
    await this.removeMember(this.checkKey(group), this.checkKey(member));
  }

  /** Delivers to the listeners of this process (stores shared by processes override it). */
  async publish(channel: string, message: string): Promise<void> {
    this.checkKey(channel);
    for (const listener of this.listeners.get(channel) ?? []) queueMicrotask(() => listener(message));
  }

  /** Listens in this process (stores shared by processes override it); always live. */
  subscribe(channel: string, onMessage: (message: string) => void, _onGap: () => void): Subscription {
    this.checkKey(channel);
    const set = this.listeners.get(channel) ?? new Set();
    this.listeners.set(channel, set.add(onMessage));
    return {
      get live() {
        return set.has(onMessage);
      },
      close: async () => {
        set.delete(onMessage);
      },
    };
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  /** Keys, groups, members and channels: 1 to 512 characters, no NUL (stores join group and member with it). */
  protected checkKey(key: string): string {
    if (this.closed) throw new AuthError('unavailable', 'state store is closed');
    if (typeof key !== 'string' || key === '' || key.length > MAX_STATE_KEY_LENGTH || key.includes('\u0000')) {
      throw new AuthError('bad_request', `state store keys are 1 to ${MAX_STATE_KEY_LENGTH} characters without NUL`);
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
