import { BoundedMap } from '../../internal/bounded-map';
import { Hs256Key } from './hs256';

/**
 * Turns secrets into {@link Hs256Key}s once, so a signature does not pad a key on every call.
 */
export class KeyCache {
  private readonly keys: BoundedMap<string, Hs256Key>;
  /** The last key asked for: nearly every call asks for the same one. */
  private last: { secret: string; key: Hs256Key } | undefined;

  /** @param maxKeys - how many distinct secrets to keep. */
  constructor(maxKeys = 64) {
    this.keys = new BoundedMap(maxKeys);
  }

  /** The key for `secret`. */
  get(secret: string): Hs256Key {
    if (this.last?.secret === secret) return this.last.key;
    let key = this.keys.get(secret);
    if (key === undefined) {
      key = new Hs256Key(secret);
      this.keys.set(secret, key);
    }
    this.last = { secret, key };
    return key;
  }
}
