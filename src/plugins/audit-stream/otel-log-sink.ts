import { configError, loadOptional, type AuthEvent } from '../../plugin-kit/helpers';
import { eventSeverity, type AuditSink } from './sink';

type Api = typeof import('@opentelemetry/api');

/**
 * An {@link AuditSink} that emits each event as an OpenTelemetry log record to the logger provider
 * the app registered (`logs.setGlobalLoggerProvider`, or NodeSDK's `logRecordProcessors`), which
 * exports them (OTLP to a collector, a SIEM's endpoint). The record's body is the event; its
 * attributes are `authgate.event.id`, `authgate.event.type` and the user id the event names.
 * Needs `@opentelemetry/api` 1.10 or later (its `logs` API).
 */
export function otelLogSink(): AuditSink {
  const api = loadOptional<Api>('@opentelemetry/api', 'otelLogSink()');
  if (typeof api.logs?.getLogger !== 'function') throw configError('otelLogSink() needs @opentelemetry/api 1.10 or later (the logs API): npm install @opentelemetry/api@^1.10');
  return {
    name: 'otel-logs',
    async send(event: AuthEvent) {
      const severity = eventSeverity(event.type);
      api.logs.getLogger('authgate').emit({
        timestamp: event.time,
        severityNumber: severity === 'warning' ? api.SeverityNumber.WARN : api.SeverityNumber.INFO,
        severityText: severity === 'warning' ? 'WARN' : 'INFO',
        eventName: `authgate.${event.type}`,
        body: JSON.stringify(event),
        attributes: { 'authgate.event.id': event.id, 'authgate.event.type': event.type, ...(event.userId === undefined ? {} : { 'user.id': event.userId }) },
      });
    },
  };
}
