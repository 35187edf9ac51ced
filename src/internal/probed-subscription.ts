import { randomId } from './random';
import type { Subscription } from './subscription';

/**
 * Pub/sub on a server that can move (a Redis Sentinel master, a Cluster shard, a PostgreSQL primary):
 * what a {@link probedSubscription} needs of it.
 */
export interface MovablePubSub {
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  /** Calls `listener` when a connection reports an error or a reconnect; returns the unsubscribe. */
  onTrouble(listener: () => void): () => void;
}

/**
 * What a probe message starts with; every subscriber skips them. No announcement starts with a
 * control character, and PostgreSQL's NOTIFY refuses a NUL, so it is U+0001.
 */
const PROBE = '\u0001probe ';

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
 * A subscription on a server that can move, whose connection may stay up on a server that no
 * longer gets the messages, or re-subscribe by itself without saying when: it counts as live only
 * once it has heard a probe message it published on its own channel, and again every
 * {@link PROBE_EVERY_MS}. A probe not heard by the next one, a probe that could not be published,
 * or a report of a lost connection ends liveness (`onGap`) until a probe is heard again (`onGap`
 * once more). After two probes unheard in a row, a failed publish or a lost connection, it
 * subscribes anew (on the server of the moment). `probeEveryMs` bounds how long a move goes unseen.
 */
export function probedSubscription(pubSub: MovablePubSub, channel: string, onMessage: (message: string) => void, onGap: () => void, probeEveryMs = PROBE_EVERY_MS): Subscription {
  let live = false;
  let closed = false;
  let subscribed = false;
  let pending: string | undefined;
  let unheard = 0;
  let renew = false;
  let timer: NodeJS.Timeout | undefined;
  let probing = false;
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
    if (subscribed && (unheard >= 2 || renew)) {
      subscribed = false;
      unheard = 0;
      renew = false;
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
      renew = true;
      become(false);
      // Subscribe anew soon rather than at the live subscription's next probe.
      if (!probing) schedule(RETRY_EVERY_MS);
    });
    const probeMessage = `${PROBE}${randomId(12)}`;
    pending = probeMessage;
    await limited(pubSub.publish(channel, probeMessage)).catch(() => {
      // Heard anyway (sent to a server that then refused it) proves nothing: it must not make the subscription live.
      if (pending === probeMessage) pending = undefined;
      renew = true;
      become(false);
    });
  };
  const schedule = (ms: number): void => {
    clearTimeout(timer);
    if (!closed) timer = setTimeout(tick, ms).unref();
  };
  const tick = (): void => {
    probing = true;
    void probe().finally(() => {
      probing = false;
      schedule(live ? probeEveryMs : RETRY_EVERY_MS);
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
