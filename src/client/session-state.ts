import { env } from './browser-env';
import type { AuthClientOptions } from './auth-client';
import type { SessionSnapshot } from './client-types';

const CHANNEL = 'authgate-session';

/** The session of one client. */
export interface SessionState {
  current(): SessionSnapshot;
  /** Takes a new state; `tellOthers` when this tab changed it (the other tabs ask the server again). */
  set(next: SessionSnapshot, tellOthers?: boolean): void;
  refresh(): Promise<SessionSnapshot>;
  /** The session's user changed (signed in, out, as someone else). */
  onChange(change: () => void): void;
  /** Something other tabs should ask about changed without a new user here (an organization activated). */
  notify(): void;
  subscribe(listener: (s: SessionSnapshot) => void): () => void;
}
const LOADING: SessionSnapshot = { status: 'loading', user: null };

/**
 * The session as this tab knows it, and the subscriptions to it. A change made here is told to
 * the other tabs of the origin (`BroadcastChannel`, else the `storage` event), which ask the
 * server again; so do tabs coming back into view.
 */
export function createSessionState(load: () => Promise<SessionSnapshot>, options: AuthClientOptions): SessionState {
  let current = LOADING;
  let asking: Promise<SessionSnapshot> | undefined;
  let channel: { postMessage(m: unknown): void; close(): void; onmessage: ((e: unknown) => void) | null } | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let watching = false;
  const listeners = new Set<(s: SessionSnapshot) => void>();
  const changes = new Set<() => void>();
  const same = (a: SessionSnapshot, b: SessionSnapshot): boolean => a.status === b.status && JSON.stringify(a.user) === JSON.stringify(b.user);

  function set(next: SessionSnapshot, tellOthers = false): void {
    if (tellOthers) {
      const browser = env();
      // A tab that does not listen still tells: through a channel of the moment.
      const teller = channel ?? (browser.BroadcastChannel ? new browser.BroadcastChannel(CHANNEL) : undefined);
      teller?.postMessage(1);
      if (teller !== channel) teller?.close();
      if (!teller) browser.localStorage?.setItem(CHANNEL, String(Date.now()));
    }
    if (same(current, next)) return;
    if (current.user?.id !== next.user?.id) for (const change of changes) change();
    current = next;
    for (const listener of [...listeners]) listener(current);
  }

  function refresh(): Promise<SessionSnapshot> {
    asking ??= load()
      .then((next) => {
        set(next);
        return current;
      })
      .finally(() => (asking = undefined));
    return asking;
  }
  const quietRefresh = (): void => {
    if (listeners.size > 0) refresh().catch(() => undefined);
  };

  // Set up on the first subscriber, never at import: a server render has no window.
  function listen(): void {
    const browser = env();
    if (browser.BroadcastChannel) {
      channel = new browser.BroadcastChannel(CHANNEL);
      channel.onmessage = quietRefresh;
    }
    if (!watching) {
      watching = true;
      if (!browser.BroadcastChannel) browser.addEventListener?.('storage', (e) => e.key === CHANNEL && quietRefresh());
      if (options.refreshOnFocus !== false) browser.document?.addEventListener?.('visibilitychange', () => browser.document?.visibilityState === 'visible' && quietRefresh());
    }
    if (options.refreshEveryMs) timer = setInterval(quietRefresh, options.refreshEveryMs);
  }

  return {
    current: (): SessionSnapshot => current,
    set,
    refresh,
    onChange: (change: () => void): void => void changes.add(change),
    notify: (): void => set(current, true),
    subscribe(listener: (s: SessionSnapshot) => void): () => void {
      if (listeners.size === 0) listen();
      listeners.add(listener);
      if (current === LOADING) quietRefresh();
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0) return;
        channel?.close();
        channel = undefined;
        clearInterval(timer);
        timer = undefined;
      };
    },
  };
}
