import { hash } from 'node:crypto';
import { safeEqual } from '../../internal/random';

/** The header every token authgate signs carries, already encoded. */
export const HS256_HEADER = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');

/** SHA-256's block size, in bytes. */
const BLOCK = 64;
/** Room for the text to sign kept from the start, in bytes (a token of 8192 characters, 3 bytes each at most, fits). */
const INITIAL_ROOM = 3 * 8192;

/**
 * An HS256 (HMAC-SHA-256, RFC 2104) key with its padded blocks computed once. Each signature is
 * two one-shot SHA-256 digests over buffers kept with the key: no hashing object per call,
 * which is what a request with a token the cache has not seen pays for.
 */
export class Hs256Key {
  /** The inner padded key, followed by room for the text to sign. */
  private inner: Buffer;
  /** The outer padded key, followed by the inner digest. */
  private readonly outer: Buffer;

  /** @param secret - the shared secret (UTF-8). */
  constructor(secret: string) {
    let key = Buffer.from(secret, 'utf8');
    if (key.length > BLOCK) key = hash('sha256', key, 'buffer');
    this.inner = Buffer.alloc(BLOCK + INITIAL_ROOM);
    this.outer = Buffer.alloc(BLOCK + 32);
    for (let i = 0; i < BLOCK; i++) {
      const k = key[i] ?? 0;
      // eslint-disable-next-line no-restricted-syntax -- an index
      this.inner[i] = k ^ 0x36;
      // eslint-disable-next-line no-restricted-syntax -- an index
      this.outer[i] = k ^ 0x5c;
    }
  }

  /** The base64url HS256 signature of `text` (its UTF-8 bytes). */
  sign(text: string): string {
    // Whole strings only: the signature must cover exactly what the token holds.
    if (text.length * 3 > this.inner.length - BLOCK) this.grow(text.length * 3);
    const n = this.inner.write(text, BLOCK, 'utf8');
    // As a latin1 ("binary") string rather than a Buffer: a short string costs the garbage collector less than an ArrayBuffer.
    this.outer.write(hash('sha256', this.inner.subarray(0, BLOCK + n), 'binary'), BLOCK, 'latin1');
    return hash('sha256', this.outer, 'base64url');
  }

  private grow(room: number): void {
    const bigger = Buffer.alloc(BLOCK + room);
    this.inner.copy(bigger, 0, 0, BLOCK);
    this.inner = bigger;
  }
}

/** Signs a payload as a compact JWT with HS256. */
export function signHs256(payload: object, key: Hs256Key): string {
  const body = `${HS256_HEADER}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${key.sign(body)}`;
}

/**
 * `true` when the last segment of `token` is the HS256 signature of what precedes it under
 * `key` (the signature compared in its canonical base64url form, in constant time).
 * @param lastDot - the index of the token's second dot.
 */
export function hasHs256Signature(token: string, lastDot: number, key: Hs256Key): boolean {
  return safeEqual(key.sign(token.slice(0, lastDot)), token.slice(lastDot + 1));
}
