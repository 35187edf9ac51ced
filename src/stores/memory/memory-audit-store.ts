import type { AuthEvent } from '../../core/audit/auth-event';
import type { AuditPage, AuditQuery, AuditStore } from '../../core/audit/audit-store';
import { matches } from '../../core/audit/audit-query';

/** The most events the memory log keeps (the oldest go first). */
export const MEMORY_AUDIT_EVENTS = 100_000;

/** The audit log in process memory: for tests and trials (nothing survives a restart). */
export class MemoryAuditStore implements AuditStore {
  /** Oldest first, by id. */
  private events: AuthEvent[] = [];

  /** @inheritdoc */
  async append(event: AuthEvent): Promise<void> {
    let i = this.events.length;
    // Ids sort by time: an event almost always goes last, and the walk back stops at once.
    while (i > 0 && (this.events[i - 1] as AuthEvent).id > event.id) i--;
    if (i > 0 && (this.events[i - 1] as AuthEvent).id === event.id) return;
    this.events.splice(i, 0, structuredClone(event));
    // Past the bound, the oldest tenth goes at once: one copy per 10,000 appends, not one per append.
    if (this.events.length > MEMORY_AUDIT_EVENTS) this.events = this.events.slice(this.events.length - MEMORY_AUDIT_EVENTS * 0.9);
  }

  /** @inheritdoc */
  async list(query: AuditQuery): Promise<AuditPage> {
    const found: AuthEvent[] = [];
    for (let i = this.events.length - 1; i >= 0 && found.length <= query.limit; i--) {
      const event = this.events[i] as AuthEvent;
      if (matches(event, query)) found.push(structuredClone(event));
    }
    const events = found.slice(0, query.limit);
    return { events, next: found.length > query.limit ? events[events.length - 1]?.id : undefined };
  }

  /** @inheritdoc */
  async purge(before: number): Promise<number> {
    const keep = this.events.filter((e) => e.time >= before);
    const gone = this.events.length - keep.length;
    this.events = keep;
    return gone;
  }

  /** @inheritdoc */
  async close(): Promise<void> {
    this.events = [];
  }
}
