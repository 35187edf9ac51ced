import { availableParallelism } from 'node:os';
import { loadOptional } from '../internal/optional';

/** bcrypt, loaded when accounts are used (an optional package); `createAccountRouter` calls it at start-up so a missing one fails there. */
export function loadBcrypt(): typeof import('bcrypt') {
  return loadOptional<typeof import('bcrypt')>('bcrypt', 'the account service (passwords)');
}

/**
 * At most this many bcrypt jobs run at once: one core is left for the event loop, so logins under
 * a flood of password checks do not starve every other request of CPU.
 */
export const BCRYPT_CONCURRENCY = Math.max(1, availableParallelism() - 1);

let running = 0;
const waiting: Array<() => void> = [];

async function limited<T>(job: () => Promise<T>): Promise<T> {
  if (running >= BCRYPT_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await job();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** Hashes with bcrypt in the thread pool (never on the event loop), at most BCRYPT_CONCURRENCY at once. */
export function hashPassword(password: string, rounds: number): Promise<string> {
  return limited(() => loadBcrypt().hash(password, rounds));
}

/**
 * Compares in the thread pool. With no hash (unknown account) it compares against a dummy hash of
 * the same cost, so the answer takes as long and does not reveal whether the account exists.
 */
export async function verifyPassword(password: string, hash: string | undefined, dummy: Promise<string>): Promise<boolean> {
  const ok = await limited(async () => loadBcrypt().compare(password, hash ?? (await dummy)));
  return ok && hash !== undefined;
}
