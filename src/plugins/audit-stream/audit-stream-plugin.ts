import { configError, type AuthEvent, type AuthEventType } from '../../plugin-kit/helpers';
import type { AuthPlugin } from '../../plugin-kit/plugin-api';
import type { AuditSink } from './sink';

/** Options of {@link auditStream}. */
export interface AuditStreamOptions {
  /** Where events go: {@link syslogSink}, {@link otelLogSink}, or your own {@link AuditSink}. */
  sinks: readonly AuditSink[];
  /** The event types sent. @default every type */
  types?: readonly AuthEventType[] | undefined;
}

/**
 * Sends every security event to a SIEM as it happens, beside the audit log: at least once. A send
 * that fails is queued in the state store and tried again by any instance until it succeeds (for
 * three days), so with a shared state store a restart or a crash loses nothing. Each event carries
 * its `id`, unique and sortable by time: the cursor a receiver keeps to drop the repeats and to
 * ask the audit log for what it missed.
 */
export function auditStream(options: AuditStreamOptions): AuthPlugin {
  const sinks = options?.sinks;
  if (!Array.isArray(sinks) || sinks.length === 0) throw configError('auditStream() needs at least one sink, e.g. sinks: [syslogSink({ host })]');
  for (const sink of sinks) if (typeof sink?.send !== 'function' || typeof sink.name !== 'string') throw configError('auditStream(): each sink needs a name and send(event)');
  const names = sinks.map((sink) => sink.name);
  if (new Set(names).size !== names.length) throw configError(`auditStream(): two sinks are named ${names.find((n, i) => names.indexOf(n) !== i)}; give each its own name`);
  const types = options.types === undefined ? undefined : new Set<string>(options.types);
  return {
    name: 'audit-stream',
    setup(ctx) {
      for (const sink of sinks) {
        // `retryAs` puts a failed send in the shared queue of retries: any instance sends it again.
        ctx.events.on(
          '*',
          async (event: AuthEvent) => {
            if (types === undefined || types.has(event.type)) await sink.send(event);
          },
          { retryAs: `audit-stream:${sink.name}` },
        );
      }
      return {
        close: async () => {
          await Promise.all(sinks.map((sink) => sink.close?.()));
        },
      };
    },
  };
}
