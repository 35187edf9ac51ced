import { createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Turns secrets into `KeyObject`s once: jsonwebtoken verifies with a key object in a few
 * microseconds but spends hundreds re-deriving one from a string on every call.
 */
export class KeyCache {
  private readonly keys = new Map<string, KeyObject>();

  /** @param maxKeys - how many distinct secrets to keep before starting over. */
  constructor(private readonly maxKeys = 64) {}

  /** The key object for `secret`. */
  get(secret: string): KeyObject {
    let key = this.keys.get(secret);
    if (key === undefined) {
      if (this.keys.size >= this.maxKeys) this.keys.clear();
      key = createSecretKey(Buffer.from(secret, 'utf8'));
      this.keys.set(secret, key);
    }
    return key;
  }
}
