import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A random id of `bytes` bytes as lower-case hex. */
export function randomId(bytes = 20): string {
  return randomBytes(bytes).toString('hex');
}

/** Compares two strings in time that depends only on their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
