import { createSecretKey, type KeyObject } from 'node:crypto';
import { BoundedMap } from '../internal/bounded-map';

/**
 * Turns secrets into `KeyObject`s once, so an HMAC does not derive a key from a string on every call.
 */
export class KeyCache {
  private readonly keys: BoundedMap<string, KeyObject>;

  /** @param maxKeys - how many distinct secrets to keep. */
  constructor(maxKeys = 64) {
    this.keys = new BoundedMap(maxKeys);
  }

  /** The key object for `secret`. */
  get(secret: string): KeyObject {
    let key = this.keys.get(secret);
    if (key === undefined) {
      key = createSecretKey(Buffer.from(secret, 'utf8'));
      this.keys.set(secret, key);
    }
    return key;
  }
}
