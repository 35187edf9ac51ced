import { everyDoc, replaceDoc, type Collection, type Schema } from '../storage/collection';
import type { Database } from '../storage/database';
import type { Subscription } from './state-store';
import { BaseStateStore, type StateEntry } from './base-state-store';

/** An entry as stored: its key, the JSON text, its expiry, and the group of a member. */
export interface StateDoc {
  k: string;
  v: string;
  u: number;
  g?: string;
}

/** A member's key: `NUL m NUL group NUL member` (other keys hold no NUL). */
const memberKey = (group: string, member = ''): string => `\u0000m\u0000${group}\u0000${member}`;

/** The state family: entries by key, expiring; a group's members by the group. */
export const STATE: Schema<StateDoc> = {
  family: 'state',
  id: (d) => d.k,
  indexes: [{ name: 'group', values: (d) => (d.g === undefined ? [] : [`${d.g}\u0000`]) }],
  expiresAt: (d) => d.u,
};

/**
 * State on a database adapter (MySQL, MariaDB, SQLite): every step is one of the collection's
 * atomic operations, so of racing `setIfAbsent`, `take` or `increment` calls, in any process, each
 * gets its own answer. There are no announcements: caches read through, and
 * `revocationCheck: 'every-request'` reads the store each time (Redis or PostgreSQL announce).
 */
export class CollectionStateStore extends BaseStateStore {
  private readonly entries: Collection<StateDoc>;

  /** @param database - where the entries live; closed with the store. */
  constructor(private readonly database: Database) {
    super();
    this.entries = database.collection(STATE);
  }

  protected override async write(key: string, entry: StateEntry, group?: string): Promise<void> {
    const doc: StateDoc = { k: key, v: entry.value, u: entry.until, ...(group === undefined ? {} : { g: group }) };
    await replaceDoc(this.entries, key, doc);
  }

  protected override async read(key: string): Promise<StateEntry | undefined> {
    const doc = await this.entries.get(key);
    return doc && { value: doc.v, until: doc.u };
  }

  protected override async writeIfAbsent(key: string, entry: StateEntry): Promise<boolean> {
    return (await this.entries.insert({ k: key, v: entry.value, u: entry.until })).inserted;
  }

  protected override async remove(key: string): Promise<StateEntry | undefined> {
    const doc = await this.entries.delete(key);
    return doc && { value: doc.v, until: doc.u };
  }

  protected override async add(key: string, fresh: StateEntry): Promise<number> {
    for (;;) {
      const counted = await this.entries.update(key, (d) => ({ ...d, v: String(Number(JSON.parse(d.v)) + 1) }));
      if (counted !== undefined) return Number(counted.v);
      if ((await this.entries.insert({ k: key, v: fresh.value, u: fresh.until })).inserted) return 1;
    }
  }

  protected override writeMember(group: string, member: string, entry: StateEntry): Promise<void> {
    return this.write(memberKey(group, member), entry, group);
  }

  protected override async readMembers(group: string): Promise<Array<[string, StateEntry]>> {
    const prefix = memberKey(group);
    const found: Array<[string, StateEntry]> = [];
    for await (const doc of everyDoc(this.entries, 'group', `${group}\u0000`)) found.push([doc.k.slice(prefix.length), { value: doc.v, until: doc.u }]);
    return found;
  }

  protected override async removeMember(group: string, member: string): Promise<void> {
    await this.entries.delete(memberKey(group, member));
  }

  /** No announcements on these databases: nothing is delivered (see the class). */
  override async publish(): Promise<void> {}

  /** Never live (see {@link CollectionStateStore.publish}). */
  override subscribe(): Subscription {
    return { live: false, close: async () => undefined };
  }

  protected override async release(): Promise<void> {
    await this.database.close();
  }
}
