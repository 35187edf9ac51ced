import type { AuthEvent } from './auth-event';
import type { AuditQuery } from './audit-store';

/** Whether `event` is one `query` asks for (stores that cannot filter in the index filter with this). */
export function matches(event: AuthEvent, query: AuditQuery): boolean {
  if (query.after !== undefined && event.id >= query.after) return false;
  if (query.userId !== undefined && event.userId !== query.userId) return false;
  if (query.types !== undefined && !query.types.includes(event.type)) return false;
  if (query.from !== undefined && event.time < query.from) return false;
  if (query.to !== undefined && event.time >= query.to) return false;
  return true;
}
