const SLOTS = 1 << 16;

/**
 * A 32-bit fingerprint of a token: FNV-1a over its last 12 characters, which in a token that
 * passes are the signature's (HMAC output, uniformly random). Equal tokens have equal
 * fingerprints; different ones rarely do, so a table keyed by it still compares the token.
 */
export function tokenFingerprint(token: string): number {
  const n = token.length;
  let hash = 0x811c9dc5;
  for (let i = Math.max(0, n - 12); i < n; i++) hash = Math.imul(hash ^ token.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * Remembers, in a fixed table of 64 Ki slots, fingerprints of tokens seen recently. The verified-
 * token cache admits a token only when it comes back while the cache could still hold it: a site
 * with more users than the cache holds would otherwise fill it with tokens whose next request comes
 * after they were dropped (and make the garbage collector move them) for no later hit. No
 * allocation per call; a collision only delays or hastens an admission.
 */
export class SeenFilter {
  // A slot is a fingerprint and its epoch side by side: one memory line per call, where two tables
  // cost two (the table is 512 KiB, so a slot is rarely in the processor's cache).
  private readonly slots = new Int32Array(2 * SLOTS);
  private calls = 0;

  /** @param window - how many calls back a sighting still counts (the cache's capacity). */
  constructor(private readonly window: number) {}

  /** `true` when `token` was probably seen within the last `window` calls (give or take one window); records it either way. */
  seenRecently(token: string): boolean {
    const hash = tokenFingerprint(token);
    const at = (hash & (SLOTS - 1)) << 1;
    const print = hash | 1;
    // Epochs start at 1, so an empty slot (0) is never recent.
    const epoch = 1 + Math.floor(this.calls++ / this.window);
    const recent = this.slots[at] === print && this.slots[at + 1]! >= epoch - 1;
    // eslint-disable-next-line no-restricted-syntax -- an index
    this.slots[at] = print;
    // eslint-disable-next-line no-restricted-syntax -- an index
    this.slots[at + 1] = epoch;
    return recent;
  }
}
