import { hostname } from 'node:os';
import { configError, type AuthEvent } from '../../plugin-kit/helpers';
import { eventSeverity, type AuditSink } from './sink';
import { SyslogConnection, type SyslogTransport } from './syslog-connection';

/** Options of {@link syslogSink}. */
export interface SyslogSinkOptions {
  /** The syslog server's host. */
  host: string;
  /** Its port. @default 6514 with `tls`, 514 otherwise */
  port?: number | undefined;
  /** `tcp` (RFC 6587 octet counting), `tls` (RFC 5425) or `udp` (RFC 5426: a datagram may be lost unseen). @default 'tcp' */
  transport?: SyslogTransport | undefined;
  /** The facility number (RFC 5424). @default 10 (authpriv: security and authorization messages) */
  facility?: number | undefined;
  /** APP-NAME of each message. @default 'authgate' */
  appName?: string | undefined;
  /** Milliseconds a connection and a write may take. @default 5000 */
  timeoutMs?: number | undefined;
  /** For `tls`: the CA certificates that sign the server's certificate (PEM). @default Node's trusted CAs */
  ca?: string | string[] | undefined;
}

const SEVERITY = { warning: 4, notice: 5 } as const;

/** The RFC 5424 form of an event: its type as MSGID, its id in structured data, the event as JSON. */
export function syslogMessage(event: AuthEvent, settings: { facility: number; appName: string; host: string }): string {
  const pri = settings.facility * 8 + SEVERITY[eventSeverity(event.type)];
  const msgId = event.type.replace(/[^\x21-\x7e]/g, '_').slice(0, 32) || '-';
  // Structured data: the id is ASCII ([a-z0-9_]); the enterprise number is IANA's for documentation until one is assigned.
  return `<${pri}>1 ${new Date(event.time).toISOString()} ${settings.host} ${settings.appName} ${process.pid} ${msgId} [authgate@32473 id="${event.id}"] ${JSON.stringify(event)}`;
}

/**
 * An {@link AuditSink} that writes each event to a syslog server (rsyslog, syslog-ng, a SIEM's
 * collector) as one RFC 5424 message. Over TCP and TLS a message counts as sent once it was
 * written to the connection.
 */
export function syslogSink(options: SyslogSinkOptions): AuditSink {
  if (typeof options?.host !== 'string' || options.host === '') throw configError('syslogSink() needs the host of the syslog server');
  const transport = options.transport ?? 'tcp';
  if (!['tcp', 'tls', 'udp'].includes(transport)) throw configError(`syslogSink(): transport must be tcp, tls or udp, not ${String(transport)}`);
  const facility = options.facility ?? 10;
  if (!Number.isInteger(facility) || facility < 0 || facility > 23) throw configError('syslogSink(): facility must be an integer from 0 to 23');
  const appName = (options.appName ?? 'authgate').replace(/[^\x21-\x7e]/g, '_').slice(0, 48);
  const connection = new SyslogConnection({
    host: options.host,
    port: options.port ?? (transport === 'tls' ? 6514 : 514),
    transport,
    timeoutMs: options.timeoutMs ?? 5000,
    ca: options.ca,
  });
  const host =
    hostname()
      .replace(/[^\x21-\x7e]/g, '_')
      .slice(0, 255) || '-';
  return {
    name: 'syslog',
    send: (event) => connection.write(syslogMessage(event, { facility, appName, host })),
    close: () => connection.close(),
  };
}
