import { createHmac, type KeyObject } from 'node:crypto';
import { safeEqual } from '../internal/random';

/** The header every token authgate signs carries, already encoded. */
export const HS256_HEADER = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');

/** Signs a payload as a compact JWT with HS256 (node:crypto, no library in between). */
export function signHs256(payload: object, key: KeyObject): string {
  const body = `${HS256_HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/**
 * `true` when the last segment of `token` is the HS256 signature of what precedes it under
 * `key` (the signature compared in its canonical base64url form, in constant time).
 * @param lastDot - the index of the token's second dot.
 */
export function hasHs256Signature(token: string, lastDot: number, key: KeyObject): boolean {
  const expected = createHmac('sha256', key).update(token.slice(0, lastDot)).digest('base64url');
  return safeEqual(expected, token.slice(lastDot + 1));
}
