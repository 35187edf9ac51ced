import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A random id of `bytes` bytes as lower-case hex. */
export function randomId(bytes = 20): string {
  return randomBytes(bytes).toString('hex');
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
