interface Slot<V> {
  value: V;
  /** Expiry in ms since the epoch; `Infinity` for none. */
  until: number;
}

/** Whether a slot has not expired; the clock is read only for slots that can. */
function isLive(slot: Slot<unknown>, now: number | undefined): boolean {
  return slot.until === Infinity || slot.until > (now ?? Date.now());
}

/**
 * A map that holds at most `capacity` entries, each with an optional time to live. It keeps two
 * generations: when the newer one fills half the capacity, the older one is dropped whole. So a
 * write is O(1) however many misses come (no per-entry eviction walking a map's deleted slots),
 * a read promotes an entry of the older generation, and what was used recently survives.
 */
export class BoundedMap<K, V> {
  private current = new Map<K, Slot<V>>();
  private previous = new Map<K, Slot<V>>();
  private readonly half: number;

  /** @param capacity - the most entries kept (at least 2). */
  constructor(readonly capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  /** The live value of `key`, or `undefined` (missing or expired). */
  get(key: K, now?: number): V | undefined {
    let slot = this.current.get(key);
    if (slot === undefined) {
      slot = this.previous.get(key);
      if (slot === undefined) return undefined;
      this.previous.delete(key);
      if (!isLive(slot, now)) return undefined;
      this.store(key, slot);
      return slot.value;
    }
    if (isLive(slot, now)) return slot.value;
    this.current.delete(key);
    return undefined;
  }

  /** Sets `key`, living `ttlMs` (forever when omitted). */
  set(key: K, value: V, ttlMs?: number, now = Date.now()): void {
    this.previous.delete(key);
    this.store(key, { value, until: ttlMs === undefined ? Infinity : now + ttlMs });
  }

  /** Removes `key`; `true` when it was there (live or not). */
  delete(key: K): boolean {
    const a = this.current.delete(key);
    const b = this.previous.delete(key);
    return a || b;
  }

  /** How many entries are held (expired ones count until they are read or dropped). */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** Drops everything. */
  clear(): void {
    this.current = new Map();
    this.previous = new Map();
  }

  /** Live entries, newer generation first. */
  *entries(now = Date.now()): IterableIterator<[K, V]> {
    for (const generation of [this.current, this.previous]) {
      for (const [key, slot] of generation) if (slot.until > now) yield [key, slot.value];
    }
  }

  private store(key: K, slot: Slot<V>): void {
    if (!this.current.has(key) && this.current.size >= this.half) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, slot);
  }
}
