/** The kinds of security events the core fires, where the thing happens; plugins add theirs (their `eventTypes`). */
export const AUTH_EVENT_TYPES = [
  'login.succeeded',
  'login.failed',
  'logout',
  'session.revoked',
  'session.refresh_refused',
  'second_factor.succeeded',
  'second_factor.failed',
  'credential.added',
  'credential.removed',
  'password.changed',
  'password.reset',
  'email.changed',
  'account.created',
  'account.activated',
  'account.deleted',
  'user.banned',
  'user.unbanned',
  'user.admin_granted',
  'user.admin_revoked',
  'impersonation.started',
  'impersonation.stopped',
  'rate_limited',
] as const;

/**
 * The kinds of security events, by name: the core's ({@link AUTH_EVENT_TYPES}) and those the
 * plugins in use add from their folders (`declare module 'authgate' { interface AuthEventTypes {
 * 'billing.changed': true } }`, listed in the plugin's `eventTypes` too), so handlers and queries
 * are typed with exactly the types the app can meet.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by the plugins
export interface AuthEventTypes extends Record<(typeof AUTH_EVENT_TYPES)[number], true> {}

/** One of {@link AuthEventTypes}. */
export type AuthEventType = keyof AuthEventTypes & string;

/** Who did it: the user itself, an admin, or the system (a rule, a limit, an expiry). */
export interface EventActor {
  kind: 'user' | 'admin' | 'system';
  /** The user id of the user or admin. */
  id?: string | undefined;
}

/** A security event, as handlers get it and the audit log keeps it. Never a password, a code or a token. */
export interface AuthEvent {
  /** Unique, sortable by time: `evt_<ms, base36><random>`. */
  id: string;
  /** ms since the epoch. */
  time: number;
  type: AuthEventType;
  /** The user it is about (absent when unknown: a failed login of an unknown name). */
  userId?: string | undefined;
  actor: EventActor;
  /** A hash of the session's token id (as the session list shows sessions), when a session was involved. */
  session?: string | undefined;
  /** The client IP, hashed with a key of the service (equal for equal IPs, the IP itself is not kept). */
  ip?: string | undefined;
  /** A short summary of the browser ("Firefox on Linux"). */
  userAgent?: string | undefined;
  /** What the type adds: a provider, a credential kind, an organization, a reason... */
  data: Record<string, unknown>;
}

/** What a caller gives to record an event; the bus adds id and time. */
export type NewAuthEvent = Omit<AuthEvent, 'id' | 'time' | 'data'> & { data?: Record<string, unknown> | undefined };
