import { BoundedMap } from '../internal/bounded-map';
import type { StateStore, Subscription } from '../state/state-store';
import { REVOKED_CHANNEL, jtiHash, type SessionRegistry, type SessionStatus } from './session-registry';

/** The most sessions whose state one process keeps. */
const CACHE_ENTRIES = 100_000;
/** How long a cached state is trusted even without a message (a safety net behind pub/sub). */
const CACHE_TTL_MS = 10 * 60_000;

/**
 * The per-process view of session states for `revocationCheck: 'every-request'`: answers from
 * memory while the store's subscription is live, since every revocation is announced there;
 * a lost subscription empties it, and without a live one every check reads the store.
 */
export class RevocationCache {
  /** By `jti` (kept in this process only): the hash of it, the user the store knew, and the state. */
  private readonly byJti = new BoundedMap<string, { h: string; userId: string; status: SessionStatus }>(CACHE_ENTRIES);
  /** By hash of the `jti`, as revocations are announced: the `jti`. */
  private readonly jtiOf = new BoundedMap<string, string>(CACHE_ENTRIES);
  /** Counts announcements: a store read that overlapped one is not cached (it may predate it). */
  private epoch = 0;
  private readonly subscription: Subscription | undefined;

  /**
   * @param registry - reads session states.
   * @param store - announces revocations.
   */
  constructor(
    private readonly registry: SessionRegistry,
    store: StateStore,
  ) {
    const forget = (h: string): void => {
      this.epoch++;
      const jti = this.jtiOf.get(h);
      if (jti !== undefined) this.byJti.delete(jti);
    };
    registry.onRevoke(forget);
    this.subscription = store.subscribe?.(REVOKED_CHANNEL, forget, () => {
      this.epoch++;
      this.byJti.clear();
      this.jtiOf.clear();
    });
  }

  /** How the session stands if memory can tell (the subscription is live and the session was read); else `undefined`. */
  known(jti: string, userId: string): SessionStatus | undefined {
    if (this.subscription?.live !== true) return undefined;
    const known = this.byJti.get(jti);
    return known !== undefined && known.userId === userId ? known.status : undefined;
  }

  /** How the session of token `jti` of `userId` stands; from memory when it can be trusted. */
  status(jti: string, userId: string): SessionStatus | Promise<SessionStatus> {
    const known = this.known(jti, userId);
    if (known !== undefined) return known;
    const live = this.subscription?.live === true;
    const h = jtiHash(jti);
    const epoch = this.epoch;
    return this.registry.status(jti, userId).then((status) => {
      if (live && epoch === this.epoch) {
        this.byJti.set(jti, { h, userId, status }, CACHE_TTL_MS);
        this.jtiOf.set(h, jti, CACHE_TTL_MS);
      }
      return status;
    });
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
