import type { Level } from 'level';
import { openLevel } from '../../internal/level';
import { KeyLock } from '../../internal/key-lock';
import { BaseStateStore, type StateEntry } from './base-state-store';

const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * State in an embedded LevelDB folder: survives restarts; one process at a time (LevelDB locks
 * the folder). Atomic steps run under a per-key lock; expired entries are swept every 10 minutes.
 */
export class LevelStateStore extends BaseStateStore {
  private readonly db: Level<string, StateEntry>;
  private readonly lock = new KeyLock();
  private readonly sweeper: NodeJS.Timeout;

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super();
    this.db = openLevel<StateEntry>(path, 'json');
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  protected override async write(key: string, entry: StateEntry): Promise<void> {
    await this.lock.run(key, () => this.db.put(key, entry));
  }

  protected override async read(key: string, now: number): Promise<StateEntry | undefined> {
    const entry = await this.db.get(key);
    return entry !== undefined && entry.until > now ? entry : undefined;
  }

  protected override writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    return this.lock.run(key, async () => {
      if ((await this.read(key, now)) !== undefined) return false;
      await this.db.put(key, entry);
      return true;
    });
  }

  protected override remove(key: string, now: number): Promise<StateEntry | undefined> {
    return this.lock.run(key, async () => {
      const entry = await this.read(key, now);
      await this.db.del(key);
      return entry;
    });
  }

  protected override add(key: string, fresh: StateEntry, now: number): Promise<number> {
    return this.lock.run(key, async () => {
      const entry = await this.read(key, now);
      const next = entry === undefined ? 1 : (JSON.parse(entry.value) as number) + 1;
      await this.db.put(key, entry === undefined ? fresh : { value: String(next), until: entry.until });
      return next;
    });
  }

  protected override async release(): Promise<void> {
    clearInterval(this.sweeper);
    await this.db.close();
  }

  /** Deletes expired entries. */
  async sweep(): Promise<number> {
    const now = Date.now();
    const expired: string[] = [];
    for await (const [key, entry] of this.db.iterator()) if (entry.until <= now) expired.push(key);
    // Each key is checked again under its lock: it may have been set afresh since the scan.
    for (const key of expired) {
      await this.lock.run(key, async () => {
        const entry = await this.db.get(key);
        if (entry !== undefined && entry.until <= now) await this.db.del(key);
      });
    }
    return expired.length;
  }
}
