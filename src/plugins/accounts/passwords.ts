import { createHmac } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { type ImportedHashOptions, loadOptional, verifyImportedHash } from '../../plugin-kit/helpers';
import { IMPORTED } from './imported-password';

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

/** Marks a hash made by bcrypt over the password's HMAC-SHA-256 (hashes without it are bcrypt over the password itself). */
const DIGESTED = 'hmac-sha256$';
/** Whether a stored hash is not authgate's own (an imported one, or bcrypt over the bare password): replaced at the next login it lets in. */
export function needsRehash(hash: string): boolean {
  return !hash.startsWith(DIGESTED);
}

/**
 * What bcrypt is given: the password's HMAC-SHA-256 under a fixed key, in base64 (44 bytes). bcrypt
 * reads at most 72 bytes, so a long password (64 characters of "é" are 128 bytes) would otherwise
 * be cut; keyed, so that a plain SHA-256 of the password leaked elsewhere cannot be tried against it.
 */
function digest(password: string): string {
  return createHmac('sha256', 'authgate password').update(password, 'utf8').digest('base64');
}

/** Hashes with bcrypt in the thread pool (never on the event loop), at most BCRYPT_CONCURRENCY at once. */
export async function hashPassword(password: string, rounds: number): Promise<string> {
  return DIGESTED + (await limited(() => loadBcrypt().hash(digest(password), rounds)));
}

/**
 * Compares in the thread pool. With no hash (unknown account) it compares against a dummy hash of
 * the same cost, so the answer takes as long and does not reveal whether the account exists.
 * Hashes made before passwords were digested (bcrypt over the password itself) keep working.
 */
export async function verifyPassword(password: string, hash: string | undefined, dummy: Promise<string>, imported: ImportedHashOptions = {}): Promise<boolean> {
  // An account without a password (imported without one) is checked against the dummy, and never matches.
  const stored = hash === undefined || hash === '' ? await dummy : hash;
  const ok = await limited(() => {
    if (stored.startsWith(DIGESTED)) return loadBcrypt().compare(digest(password), stored.slice(DIGESTED.length));
    if (stored.startsWith(IMPORTED)) return verifyImportedHash(stored.slice(IMPORTED.length), password, imported);
    return loadBcrypt().compare(password, stored.replace(/^\$2y\$/, '$2b$'));
  });
  return ok && hash !== undefined && hash !== '';
}
