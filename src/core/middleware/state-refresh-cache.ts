import { createHash } from 'node:crypto';
import type { StateStore } from '../state/state-store';
import type { RefreshCache, RefreshedToken } from './refresh-cache';

/** How long a claimed refresh stays claimed (a crashed claimant frees it after this). */
const CLAIM_TTL_MS = 10_000;

/** A {@link RefreshCache} on a state store, so instances sharing it (Redis, PostgreSQL, MongoDB) refresh a token once. */
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

  /** @inheritdoc */
  claim(oldToken: string): Promise<boolean> {
    return this.store.setIfAbsent(this.key(oldToken, 'refresh-claim'), 1, CLAIM_TTL_MS);
  }

  // Tokens can be long; the key is their hash.
  private key(token: string, kind = 'refresh'): string {
    return `${kind}:${createHash('sha256').update(token).digest('base64url')}`;
  }
}
