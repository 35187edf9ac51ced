import { encodeCursor } from '../storage/collection';
import type { Database } from '../storage/database';
import { Repository } from '../storage/repository';
import { matches } from './audit-query';
import { AUDIT, eventsOf, newestAtOrBefore, newestFirst } from './audit-schema';
import type { AuditPage, AuditQuery, AuditStore } from './audit-store';
import type { AuthEvent } from './auth-event';

/** How many old events one step of a purge reads and deletes. */
const PURGE_PAGE = 500;

/** The audit log on any database adapter: the {@link AUDIT} family, read newest first through its indexes. */
export class AuditRepository extends Repository<AuthEvent> implements AuditStore {
  /** @param database - where the family lives; closed with the store. */
  constructor(database: Database) {
    super(database, AUDIT);
  }

  /** @inheritdoc */
  async append(event: AuthEvent): Promise<void> {
    await this.docs.insert(event);
  }

  /** @inheritdoc */
  async list(query: AuditQuery): Promise<AuditPage> {
    const [index, prefix] = query.userId === undefined ? ['recent', ''] : ['user', eventsOf(query.userId)];
    // The newest event wanted: right after the cursor, or at the end of the time range.
    let after =
      query.after !== undefined
        ? encodeCursor(`${prefix}${newestFirst(query.after)}`, query.after)
        : query.to !== undefined
          ? encodeCursor(`${prefix}${newestAtOrBefore(Math.ceil(query.to) - 1)}`, '')
          : undefined;
    const found: AuthEvent[] = [];
    read: while (found.length <= query.limit) {
      const page = await this.docs.find(index, { prefix, after, limit: Math.min(1000, query.limit + 1) });
      for (const event of page.docs) {
        // Newest first: past the start of the range, every event is older still.
        if (query.from !== undefined && event.time < query.from) break read;
        if (matches(event, query)) found.push(event);
        if (found.length > query.limit) break read;
      }
      if (page.next === undefined) break;
      after = page.next;
    }
    const events = found.slice(0, query.limit);
    return { events, next: found.length > query.limit ? events.at(-1)?.id : undefined };
  }

  /** @inheritdoc */
  async purge(before: number): Promise<number> {
    let gone = 0;
    let after: string | undefined = encodeCursor(newestAtOrBefore(Math.ceil(before) - 1), '');
    while (after !== undefined) {
      const page = await this.docs.find('recent', { prefix: '', after, limit: PURGE_PAGE });
      for (const event of page.docs) if (event.time < before && (await this.docs.delete(event.id)) !== undefined) gone++;
      after = page.next;
    }
    return gone;
  }
}
