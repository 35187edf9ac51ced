import { type Logger, logTo } from '../base/logger';

/** A key no store holds: reading it opens the store's connection or folder and nothing more. */
export const PROBE_KEY = 'authgate:start-up-probe';

/**
 * Runs `probe` (a read of a key no store holds) in the background when the store was given by a
 * URI other than `memory://`, and logs its failure with a fix.
 */
export function probeStore(given: unknown, probe: () => Promise<unknown>, logger: Logger): void {
  if (typeof given !== 'string' || given.startsWith('memory:')) return;
  void probePatiently(probe, SLOW_OPEN_TRIES).catch((err: unknown) =>
    logTo(logger).error('at start-up, {error}{hint}', { code: 'unavailable', error: (err as Error).message, hint: hintFor((err as Error).message) }),
  );
}

/** How many times a store that did not answer in time is asked at start-up before it is said to have failed. */
const SLOW_OPEN_TRIES = 3;

/** A first open on a busy machine (a level folder, a first connection) may take longer than one call may: ask again before telling. */
async function probePatiently(probe: () => Promise<unknown>, tries: number): Promise<void> {
  try {
    await probe();
  } catch (err) {
    if (tries <= 1 || !/did not answer within/.test((err as Error)?.message ?? '')) throw err;
    await probePatiently(probe, tries - 1);
  }
}

/** Whether a store's error says another process holds its folder (a level database's lock). */
export function heldElsewhere(message: string): boolean {
  return /LEVEL_LOCKED|\block\b|locked/i.test(message);
}

function hintFor(message: string): string {
  if (heldElsewhere(message)) {
    return ': another process holds this folder. A level folder serves one process: stop the other one, or give several instances a shared database (postgres://, mysql://, redis://)';
  }
  return ': logins answer 503 until it can be reached';
}
