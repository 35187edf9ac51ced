import { record, telemetryOn } from '../../base/telemetry';
import type { Subscription } from '../../internal/subscription';
import type { StateStore } from './state-store';

const CHANNEL = 'authgate:heartbeat';

/**
 * With telemetry on and a state store that carries announcements between instances, each instance
 * announces its clock every `everyMs`, and records how long every announcement (its own and the
 * others') took to arrive: `authgate.announcement.lag`. Clocks that disagree show as lag too,
 * which is worth knowing: token times are judged against them.
 */
export class AnnouncementHeartbeat {
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(store: StateStore, everyMs = 10_000) {
    const { publish, subscribe } = store;
    if (publish === undefined || subscribe === undefined) return;
    // Whether an SDK is registered is read at each beat: it may come after createAuth().
    this.timer = setInterval(() => {
      if (!telemetryOn()) return;
      this.subscription ??= subscribe.call(
        store,
        CHANNEL,
        (message) => {
          const sent = Number(message);
          if (Number.isFinite(sent)) record('authgate.announcement.lag', Math.max(0, Date.now() - sent) / 1000);
        },
        () => undefined,
      );
      publish.call(store, CHANNEL, String(Date.now())).catch(() => undefined);
    }, everyMs).unref();
  }

  /** Stops announcing and listening. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.subscription?.close();
  }
}
