import type { AuthEvent } from '../../plugin-kit/helpers';

/**
 * Where the audit stream sends events. `send` resolves once the event was handed over (a syslog
 * write flushed, an exporter called) and rejects otherwise: the event is then sent again later,
 * from the shared queue of retries, by any instance. A receiver may see an event twice and
 * recognises it by its `id` (unique, sortable by time).
 */
export interface AuditSink {
  /** A short name for the queue of retries and the log (`syslog`, `otel-logs`). */
  readonly name: string;
  /** Hands one event over. */
  send(event: AuthEvent): Promise<void>;
  /** Closes connections. */
  close?(): Promise<void>;
}

/** Severity of an event for a log line: a refusal or a failure is a warning, the rest a notice. */
export function eventSeverity(type: string): 'warning' | 'notice' {
  return /(\.failed|refused|rate_limited|banned|deprovisioned)$/.test(type) ? 'warning' : 'notice';
}
