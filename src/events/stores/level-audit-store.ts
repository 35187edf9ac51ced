import type { Level } from 'level';
import { openLevel } from '../../internal/level';
import type { Lease } from '../../internal/shared-handles';
import type { AuthEvent } from '../auth-event';
import { matches } from '../audit-query';
import type { AuditPage, AuditQuery, AuditStore } from '../audit-store';
import { eventIdFloor } from '../event-ids';

const EVENT = 'ev!';
/** `evu!<user id>\0<event id>`: a user's events, in id (time) order. */
const BY_USER = 'evu!';
const SEP = '\u0000';
const END = '\uffff';

/** The audit log in an embedded LevelDB folder (one process): events by id, and an index by user. */
export class LevelAuditStore implements AuditStore {
  private readonly db: Level<string, string>;
  private readonly lease: Lease<Level<string, string>>;

  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    this.lease = openLevel<string>(path, 'utf8');
    this.db = this.lease.handle;
  }

  /** @inheritdoc */
  async append(event: AuthEvent): Promise<void> {
    await this.db.batch([
      { type: 'put', key: EVENT + event.id, value: JSON.stringify(event) },
      ...(event.userId === undefined ? [] : [{ type: 'put' as const, key: BY_USER + event.userId + SEP + event.id, value: '' }]),
    ]);
  }

  /** @inheritdoc */
  async list(query: AuditQuery): Promise<AuditPage> {
    const found: AuthEvent[] = [];
    const upper = query.after ?? (query.to !== undefined ? eventIdFloor(query.to) : END);
    const lower = query.from !== undefined ? eventIdFloor(query.from) : '';
    if (query.userId !== undefined) {
      const prefix = BY_USER + query.userId + SEP;
      for await (const key of this.db.keys({ gte: prefix + lower, lt: prefix + upper, reverse: true })) {
        const value = await this.db.get(EVENT + key.slice(prefix.length));
        if (value === undefined) continue;
        const event = JSON.parse(value) as AuthEvent;
        if (matches(event, query)) found.push(event);
        if (found.length > query.limit) break;
      }
    } else {
      for await (const value of this.db.values({ gte: EVENT + lower, lt: EVENT + upper, reverse: true })) {
        const event = JSON.parse(value) as AuthEvent;
        if (matches(event, query)) found.push(event);
        if (found.length > query.limit) break;
      }
    }
    const events = found.slice(0, query.limit);
    return { events, next: found.length > query.limit ? events[events.length - 1]?.id : undefined };
  }

  /** @inheritdoc */
  async purge(before: number): Promise<number> {
    let gone = 0;
    for await (const value of this.db.values({ gt: EVENT, lt: EVENT + eventIdFloor(before) })) {
      const event = JSON.parse(value) as AuthEvent;
      await this.db.batch([{ type: 'del', key: EVENT + event.id }, ...(event.userId === undefined ? [] : [{ type: 'del' as const, key: BY_USER + event.userId + SEP + event.id }])]);
      gone++;
    }
    return gone;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    await this.lease.release();
  }
}
