export { auditStream, type AuditStreamOptions } from './audit-stream-plugin';
export { type AuditSink } from './sink';
export { syslogSink, syslogMessage, type SyslogSinkOptions } from './syslog-sink';
export type { SyslogTransport } from './syslog-connection';
export { otelLogSink } from './otel-log-sink';
