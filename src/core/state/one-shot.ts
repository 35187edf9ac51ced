import { isUnavailable } from '../../base/errors';
import type { StateStore } from './state-store';
import { stateCall } from './state-call';

/**
 * Marks `key` used for `ttlMs` on every instance: `true` for the first caller only. With `then`,
 * runs it after the mark, and a 503 from it (before anything was sent on `res`) gives the mark
 * back, so that "a 503 means nothing changed" holds for one-shot links, tickets and codes too: the
 * same one works again once the store is back. Any other failure keeps the mark.
 */
export type UseOnce = (key: string, ttlMs: number, then?: () => Promise<unknown>, res?: { readonly headersSent: boolean }) => Promise<boolean>;

/** The {@link UseOnce} of a state store (its keys are `once:<key>`). */
export function oneShotMarks(store: StateStore): UseOnce {
  return async (key, ttlMs, then, res) => {
    const mark = `once:${key}`;
    if (!(await stateCall(() => store.setIfAbsent(mark, 1, ttlMs)))) return false;
    if (then === undefined) return true;
    try {
      await then();
    } catch (err) {
      // Best effort: while the state store itself is down the mark stays, and the user starts again.
      if (isUnavailable(err) && res?.headersSent !== true) await store.delete(mark).catch(() => undefined);
      throw err;
    }
    return true;
  };
}
