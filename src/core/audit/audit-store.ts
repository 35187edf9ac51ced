import type { AuthEvent, AuthEventType } from './auth-event';

/** A query of the audit log: newest first, optionally of one user, of some types, within a time range. */
export interface AuditQuery {
  userId?: string | undefined;
  types?: readonly AuthEventType[] | undefined;
  /** Only events at or after this time (ms). */
  from?: number | undefined;
  /** Only events before this time (ms). */
  to?: number | undefined;
  /** Start after this event id (the last of the previous page). */
  after?: string | undefined;
  limit: number;
}

/** A page of events, newest first; `next` is the id to pass as `after` (absent on the last page). */
export interface AuditPage {
  events: AuthEvent[];
  next?: string | undefined;
}

/**
 * The audit log: append-only (an event is never changed), read newest first by user, type and
 * time through an index, and purged of events older than the retention.
 */
export interface AuditStore {
  /** Appends an event (ids are unique). */
  append(event: AuthEvent): Promise<void>;
  /** A page of events; see {@link AuditQuery}. */
  list(query: AuditQuery): Promise<AuditPage>;
  /** Deletes events older than `before` (ms); returns how many went. */
  purge(before: number): Promise<number>;
  /** Releases resources. */
  close(): Promise<void>;
}
