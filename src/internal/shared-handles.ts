/** A handle taken from {@link SharedHandles}: use `handle`, and `release()` it once (the last release closes it). */
export interface Lease<H> {
  readonly handle: H;
  /** Gives the handle back; the last holder's release closes it. Later calls do nothing. */
  release(): Promise<void>;
}

/**
 * Connections shared by every store on one database: one handle per key (a pool per PostgreSQL
 * URI, a client per MongoDB or Redis URI, one LevelDB per folder), counted by holder, so that
 * closing one store never closes another's connection, and the last one closes it.
 */
export class SharedHandles<H> {
  private readonly open = new Map<string, { handle: H; holders: number }>();

  /** @param end - closes a handle no store holds any more. */
  constructor(private readonly end: (handle: H) => Promise<void>) {}

  /** The open handle of `key`, if any, without taking it. */
  peek(key: string): H | undefined {
    return this.open.get(key)?.handle;
  }

  /** The handle of `key`, opened by `make` on first use (lazily connecting is fine); release it when done. */
  acquire(key: string, make: () => H): Lease<H> {
    let entry = this.open.get(key);
    if (entry === undefined) {
      entry = { handle: make(), holders: 0 };
      this.open.set(key, entry);
    }
    entry.holders++;
    const held = entry;
    let released = false;
    return {
      handle: held.handle,
      release: async () => {
        if (released) return;
        released = true;
        held.holders--;
        if (held.holders > 0) return;
        if (this.open.get(key) === held) this.open.delete(key);
        await this.end(held.handle);
      },
    };
  }

  /** How many distinct handles are open (for tests and diagnostics). */
  get size(): number {
    return this.open.size;
  }
}
