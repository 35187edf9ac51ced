import type { Level } from 'level';
import { openLevel, whenOpen } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import { KeyLock } from '../../internal/key-lock';
import { BaseStateStore, type StateEntry } from '../../core/state/base-state-store';

const SWEEP_EVERY_MS = 10 * 60_000;

/** Group members are entries under `NUL m NUL group NUL member` (other keys hold no NUL), so a group is one key range. */
const memberKey = (group: string, member = ''): string => `\u0000m\u0000${group}\u0000${member}`;

/**
 * State in an embedded LevelDB folder: survives restarts; one process at a time (LevelDB locks
 * the folder). Atomic steps run under a per-key lock; expired entries are swept every 10 minutes.
 */
export class LevelStateStore extends BaseStateStore {
  private readonly db: Level<string, StateEntry>;
  private readonly lease: Lease<Level<string, StateEntry>>;
  private readonly lock = new KeyLock();
  private readonly sweeper: NodeJS.Timeout;

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super();
    this.lease = openLevel<StateEntry>(path, 'json');
    this.db = this.lease.handle;
    this.sweeper = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  protected override async write(key: string, entry: StateEntry): Promise<void> {
    await this.lock.run(key, () => this.db.put(key, entry));
  }

  protected override async read(key: string, now: number): Promise<StateEntry | undefined> {
    // Every call reads first: a folder that failed to open says why (a lock held by another process).
    await whenOpen(this.db);
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

  protected override async writeMember(group: string, member: string, entry: StateEntry): Promise<void> {
    await this.write(memberKey(group, member), entry);
  }

  protected override async readMembers(group: string, now: number): Promise<Array<[string, StateEntry]>> {
    const prefix = memberKey(group);
    const found: Array<[string, StateEntry]> = [];
    for await (const [key, entry] of this.db.iterator({ gt: prefix, lt: `${prefix.slice(0, -1)}\u0001` })) {
      if (entry.until > now) found.push([key.slice(prefix.length), entry]);
    }
    return found;
  }

  protected override async removeMember(group: string, member: string): Promise<void> {
    await this.remove(memberKey(group, member), Number.NEGATIVE_INFINITY);
  }

  protected override async release(): Promise<void> {
    clearInterval(this.sweeper);
    await this.lease.release();
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
