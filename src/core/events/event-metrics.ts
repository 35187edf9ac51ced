import { count, telemetryOn, type TelemetryAttributes, type TelemetryCounter } from '../../base/telemetry';
import type { NewAuthEvent } from '../audit/auth-event';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.length <= 64 ? value : undefined);

/** The counter an event adds to, and with which attributes: the provider, a method, an outcome or a reason, never who. */
const COUNTED: Readonly<Record<string, (data: Record<string, unknown>) => [TelemetryCounter, TelemetryAttributes]>> = {
  'login.succeeded': (data) => ['authgate.logins', { 'authgate.provider': text(data.provider), 'authgate.outcome': 'succeeded' }],
  'login.failed': (data) => ['authgate.logins', { 'authgate.provider': text(data.provider), 'authgate.outcome': text(data.reason) ?? 'failed' }],
  'account.created': (data) => ['authgate.signups', { 'authgate.method': text(data.method) ?? text(data.provider) }],
  'second_factor.succeeded': () => ['authgate.second_factor', { 'authgate.outcome': 'succeeded' }],
  'second_factor.failed': () => ['authgate.second_factor', { 'authgate.outcome': 'failed' }],
  'session.revoked': (data) => ['authgate.sessions.revoked', { 'authgate.reason': text(data.reason) }],
  'session.refresh_refused': () => ['authgate.token.refreshes', { 'authgate.outcome': 'refused' }],
};

/** Adds an event to its counter (see docs/operations.md), when telemetry is on. */
export function countEvent(event: NewAuthEvent): void {
  if (!telemetryOn()) return;
  const counted = COUNTED[event.type];
  if (counted === undefined) return;
  const [name, attributes] = counted(event.data ?? {});
  count(name, attributes);
}
