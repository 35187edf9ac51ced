const SLOTS = 1 << 16;

/**
 * Remembers, in a fixed table of 64 Ki numbers, fingerprints of tokens seen once. The verified-
 * token cache admits a token only on its second sighting: a site with more users than the cache
 * holds would otherwise fill it with tokens seen once (and make the garbage collector move them)
 * for no later hit. No allocation per call; a collision only delays or hastens an admission.
 */
export class SeenFilter {
  private readonly table = new Int32Array(SLOTS);

  /** `true` when `token` was probably seen before; records it either way. */
  seenBefore(token: string): boolean {
    // The signature's last characters are uniformly random (HMAC output) in tokens that pass.
    const n = token.length;
    let hash = 0x811c9dc5;
    for (let i = Math.max(0, n - 12); i < n; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 0x01000193);
    const slot = hash & (SLOTS - 1);
    const print = hash | 1;
    if (this.table[slot] === print) return true;
    this.table[slot] = print;
    return false;
  }
}
