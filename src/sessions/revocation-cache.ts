import { BoundedMap } from '../internal/bounded-map';
import type { StateStore } from '../state/state-store';
import { CacheAnnouncements } from '../state/announcements';
import { REVOKED_CHANNEL, jtiHash, type SessionRegistry, type SessionStatus } from './session-registry';

/** The most sessions whose state one process keeps. */
export const REVOCATION_CACHE_ENTRIES = 100_000;
/** How long a cached state is trusted even without a message (a safety net behind pub/sub). */
const CACHE_TTL_MS = 10 * 60_000;

/**
 * The per-process view of session states for `revocationCheck: 'every-request'`: answers from
 * memory while the store's subscription is live, since every revocation is announced there;
 * a lost subscription empties it, and without a live one every check reads the store.
 */
export class RevocationCache {
  /**
   * By session hash (the `jti`'s, as revocations are announced): the user the store knew and the
   * state. One map, so that whatever it still holds an announcement can reach.
   */
  private readonly bySession = new BoundedMap<string, { userId: string; status: SessionStatus }>(REVOCATION_CACHE_ENTRIES);
  private readonly announcements: CacheAnnouncements;

  /**
   * @param registry - reads session states.
   * @param store - announces revocations.
   */
  constructor(
    private readonly registry: SessionRegistry,
    store: StateStore,
  ) {
    this.announcements = new CacheAnnouncements(store, REVOKED_CHANNEL, {
      changed: (h) => this.bySession.delete(h),
      lost: () => this.bySession.clear(),
    });
    registry.onRevoke((h) => {
      this.announcements.changedHere();
      this.bySession.delete(h);
    });
  }

  /** How the session stands if memory can tell (the subscription is live and the session was read); else `undefined`. */
  known(jti: string, userId: string): SessionStatus | undefined {
    return this.knownByHash(jtiHash(jti), userId);
  }

  /** How the session of token `jti` of `userId` stands; from memory when it can be trusted. */
  status(jti: string, userId: string): SessionStatus | Promise<SessionStatus> {
    const h = jtiHash(jti);
    const known = this.knownByHash(h, userId);
    if (known !== undefined) return known;
    const mark = this.announcements.mark();
    return this.registry.status(jti, userId).then((status) => {
      if (this.announcements.keep(mark)) this.bySession.set(h, { userId, status }, CACHE_TTL_MS);
      return status;
    });
  }

  private knownByHash(h: string, userId: string): SessionStatus | undefined {
    if (!this.announcements.live) return undefined;
    const known = this.bySession.get(h);
    return known !== undefined && known.userId === userId ? known.status : undefined;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.announcements.close();
  }
}
