import { randomBytes, timingSafeEqual } from 'node:crypto';

/** How many random bytes are drawn at once for ids (as `crypto.randomUUID` does for its own). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/**
 * A random id of `bytes` bytes as lower-case hex, from the operating system's CSPRNG. Short ids
 * come from a pool drawn 4 KiB at a time: one `randomBytes` call per id cost a login about 6 %
 * of its time. Each byte of the pool is handed out once.
 */
export function randomId(bytes = 20): string {
  if (bytes > POOL_BYTES / 8) return randomBytes(bytes).toString('hex');
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const id = pool.toString('hex', used, used + bytes);
  used += bytes;
  return id;
}

/**
 * Compares two strings in time that depends only on their lengths. Short strings (token ids,
 * states) are compared char by char without allocating; long ones through `timingSafeEqual`.
 */
export function safeEqual(a: string, b: string): boolean {
  if (a.length <= 256 && b.length <= 256) {
    let diff = a.length ^ b.length;
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
    return diff === 0;
  }
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
