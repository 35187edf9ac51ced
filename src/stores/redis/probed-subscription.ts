import { randomId } from '../../internal/random';
import type { RedisPubSub } from '../../internal/redis';
import type { Subscription } from '../../core/state/state-store';

/** What a probe message starts with; every subscriber skips them (a NUL never starts an announcement). */
const PROBE = '\u0000probe ';

/** How often a live subscription proves itself, and how often one that is not live tries again, in ms. */
export const PROBE_EVERY_MS = 2000;
const RETRY_EVERY_MS = 250;
/** The longest one pub/sub call of a probe may take: a call on a connection to a dead master can wait for it forever. */
const CALL_LIMIT_MS = 1000;

/** `call`, failed when it takes longer than {@link CALL_LIMIT_MS}. */
function limited<T>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('pub/sub call took too long')), CALL_LIMIT_MS);
  });
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

/**
 * A subscription on Sentinel or Cluster, whose clients re-subscribe by themselves after a failover
 * but do not say when: it counts as live only once it has heard a probe message it published on
 * its own channel, and again every {@link PROBE_EVERY_MS}. A probe not heard by the next one, or
 * a client's report of a lost connection, ends liveness (`onGap`) until a probe is heard again
 * (`onGap` once more). After two probes unheard in a row it subscribes anew.
 */
export function probedSubscription(pubSub: RedisPubSub, channel: string, onMessage: (message: string) => void, onGap: () => void): Subscription {
  let live = false;
  let closed = false;
  let subscribed = false;
  let pending: string | undefined;
  let unheard = 0;
  let timer: NodeJS.Timeout | undefined;
  const become = (next: boolean): void => {
    if (next === live || closed) return;
    live = next;
    onGap();
  };
  const listener = (message: string): void => {
    if (!message.startsWith(PROBE)) return onMessage(message);
    if (message !== pending) return;
    pending = undefined;
    unheard = 0;
    become(true);
  };
  let stopTrouble: (() => void) | undefined;
  const probe = async (): Promise<void> => {
    if (pending !== undefined) {
      unheard++;
      become(false);
    }
    if (subscribed && unheard >= 2) {
      subscribed = false;
      unheard = 0;
      await limited(pubSub.unsubscribe(channel, listener)).catch(() => undefined);
    }
    if (!subscribed)
      subscribed = await pubSub.subscribe(channel, listener).then(
        () => true,
        () => false,
      );
    if (!subscribed || closed) return;
    // Once connected: the client's own word of a lost connection ends liveness before a probe could.
    stopTrouble ??= pubSub.onTrouble(() => {
      pending = undefined;
      become(false);
    });
    pending = `${PROBE}${randomId(12)}`;
    await limited(pubSub.publish(channel, pending)).catch(() => become(false));
  };
  const tick = (): void => {
    void probe().finally(() => {
      if (!closed) timer = setTimeout(tick, live ? PROBE_EVERY_MS : RETRY_EVERY_MS).unref();
    });
  };
  tick();
  return {
    get live() {
      return live;
    },
    close: async () => {
      closed = true;
      live = false;
      clearTimeout(timer);
      stopTrouble?.();
      if (subscribed) await limited(pubSub.unsubscribe(channel, listener)).catch(() => undefined);
    },
  };
}
