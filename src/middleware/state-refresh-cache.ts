import { createHash } from 'node:crypto';
import type { StateStore } from '../state/state-store';
import type { RefreshCache, RefreshedToken } from './refresh-cache';

/** A {@link RefreshCache} on a state store, so instances sharing a mongo store refresh a token once. */
export class StateRefreshCache implements RefreshCache {
  /**
   * @param store - where refreshed tokens are kept.
   * @param ttlMs - how long an entry is served. @default 60000
   */
  constructor(
    private readonly store: StateStore,
    private readonly ttlMs = 60_000,
  ) {}

  /** @inheritdoc */
  get(oldToken: string): Promise<RefreshedToken | undefined> {
    return this.store.get<RefreshedToken>(this.key(oldToken));
  }

  /** @inheritdoc */
  async set(oldToken: string, refreshed: RefreshedToken): Promise<void> {
    await this.store.set(this.key(oldToken), refreshed, this.ttlMs);
  }

  // Tokens can be long; the key is their hash.
  private key(token: string): string {
    return `refresh:${createHash('sha256').update(token).digest('base64url')}`;
  }
}
