/** `authgate/audit-stream`: security events sent to a SIEM as they happen (syslog, OpenTelemetry logs, your own sink), at least once. */
export { auditStream, syslogSink, syslogMessage, otelLogSink, type AuditStreamOptions, type AuditSink, type SyslogSinkOptions, type SyslogTransport } from './plugins/audit-stream';
