import { BaseStateStore, type StateEntry } from '../../core/state/base-state-store';

/**
 * State in process memory, bounded: entries and group members count against one bound; expired
 * ones go first, then the oldest. Not shared between processes.
 */
export class MemoryStateStore extends BaseStateStore {
  private readonly entries = new Map<string, StateEntry>();
  private readonly groups = new Map<string, Map<string, StateEntry>>();
  private lastSweep = 0;
  /** Members held in all groups (expired ones included until they are read or evicted). */
  private memberCount = 0;

  /** @param maxEntries - the most entries kept. @default 100000 */
  constructor(private readonly maxEntries = 100_000) {
    super();
  }

  /** How many entries and group members are kept now (expired ones included until evicted). */
  get size(): number {
    return this.entries.size + this.memberCount;
  }

  // No await between reading and writing: that is what makes setIfAbsent and take atomic here.
  protected override async write(key: string, entry: StateEntry): Promise<void> {
    this.put(key, entry);
  }

  protected override async read(key: string, now: number): Promise<StateEntry | undefined> {
    return this.live(key, now);
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry, now: number): Promise<boolean> {
    if (this.live(key, now) !== undefined) return false;
    this.put(key, entry);
    return true;
  }

  protected override async remove(key: string, now: number): Promise<StateEntry | undefined> {
    const entry = this.live(key, now);
    this.entries.delete(key);
    return entry;
  }

  protected override async add(key: string, fresh: StateEntry, now: number): Promise<number> {
    const entry = this.live(key, now);
    if (entry === undefined) {
      this.put(key, fresh);
      return 1;
    }
    const next = (JSON.parse(entry.value) as number) + 1;
    entry.value = String(next);
    return next;
  }

  protected override async writeMember(group: string, member: string, entry: StateEntry): Promise<void> {
    let members = this.groups.get(group);
    if (members?.has(member) !== true && this.size >= this.maxEntries) this.evict(Date.now());
    members = this.groups.get(group);
    if (members === undefined) {
      members = new Map();
      this.groups.set(group, members);
    }
    if (!members.has(member)) this.memberCount++;
    members.set(member, entry);
  }

  protected override async readMembers(group: string, now: number): Promise<Array<[string, StateEntry]>> {
    const members = this.groups.get(group);
    if (members === undefined) return [];
    for (const [member, entry] of members) if (entry.until <= now) this.dropMember(group, members, member);
    return [...members];
  }

  protected override async removeMember(group: string, member: string): Promise<void> {
    const members = this.groups.get(group);
    if (members !== undefined) this.dropMember(group, members, member);
  }

  private dropMember(group: string, members: Map<string, StateEntry>, member: string): void {
    if (members.delete(member)) this.memberCount--;
    if (members.size === 0) this.groups.delete(group);
  }

  private dropGroup(group: string): void {
    this.memberCount -= this.groups.get(group)?.size ?? 0;
    this.groups.delete(group);
  }

  private live(key: string, now: number): StateEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private put(key: string, entry: StateEntry): void {
    this.entries.delete(key);
    if (this.size >= this.maxEntries) this.evict(Date.now());
    this.entries.set(key, entry);
  }

  protected override async release(): Promise<void> {
    this.entries.clear();
    this.groups.clear();
    this.memberCount = 0;
  }

  /**
   * Expired entries and members go first, but a full scan runs at most once a second: a full
   * store under load drops the oldest instead, of entries or of groups, whichever holds more.
   */
  private evict(now: number): void {
    if (now - this.lastSweep >= 1000) {
      this.lastSweep = now;
      for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
      for (const [group, members] of this.groups) for (const [member, entry] of members) if (entry.until <= now) this.dropMember(group, members, member);
    }
    while (this.size >= this.maxEntries) {
      if (this.entries.size >= this.memberCount) {
        const oldest = this.entries.keys().next();
        if (oldest.done) break;
        this.entries.delete(oldest.value);
      } else {
        const oldest = this.groups.keys().next();
        if (oldest.done) break;
        this.dropGroup(oldest.value);
      }
    }
  }
}
