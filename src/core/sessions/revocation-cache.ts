import type { StateStore } from '../state/state-store';
import { AnnouncedCache, type AnnouncedMap } from '../state/announced-cache';
import { REVOKED_CHANNEL, jtiHash, type SessionRegistry, type SessionStatus } from './session-registry';

/** The most sessions whose state one process keeps. */
export const REVOCATION_CACHE_ENTRIES = 100_000;

/**
 * The per-process view of session states for `revocationCheck: 'every-request'`: answers from
 * memory while the store's subscription is live, since every revocation is announced there;
 * a lost subscription empties it, and without a live one every check reads the store.
 */
export class RevocationCache {
  private readonly cache: AnnouncedCache;
  /**
   * By session hash (the `jti`'s, as revocations are announced): the user the store knew and the
   * state. One map, so that whatever it still holds an announcement can reach.
   */
  private readonly bySession: AnnouncedMap<string, { userId: string; status: SessionStatus }>;

  /**
   * @param registry - reads session states.
   * @param store - announces revocations.
   */
  constructor(
    private readonly registry: SessionRegistry,
    store: StateStore,
  ) {
    this.cache = new AnnouncedCache(store, REVOKED_CHANNEL, (h) => this.bySession.delete(h));
    this.bySession = this.cache.map(REVOCATION_CACHE_ENTRIES);
    // The registry announces a revocation itself; this process forgets it at once.
    registry.onRevoke((h) => this.cache.changedHere(h));
  }

  /** How the session stands if memory can tell (the subscription is live and the session was read); else `undefined`. */
  known(jti: string, userId: string): SessionStatus | undefined {
    const known = this.bySession.get(jtiHash(jti));
    return known !== undefined && known.userId === userId ? known.status : undefined;
  }

  /** How the session of token `jti` of `userId` stands; from memory when it can be trusted. */
  status(jti: string, userId: string): SessionStatus | Promise<SessionStatus> {
    const h = jtiHash(jti);
    const known = this.bySession.get(h);
    if (known !== undefined && known.userId === userId) return known.status;
    const mark = this.cache.mark();
    return this.registry.status(jti, userId).then((status) => {
      this.bySession.keep(mark, h, { userId, status });
      return status;
    });
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.cache.close();
  }
}
