import { createHmac } from 'node:crypto';
import { countEvent } from './event-metrics';
import type { IncomingMessage } from 'node:http';
import { clientIp, type AddressedRequest } from '../../internal/client-ip';
import { type Logger, logTo } from '../../base/logger';
import { summarizeUserAgent } from '../sessions/user-agent';
import type { AuditStore } from '../audit/audit-store';
import { AuthError, configError, errorName } from '../../base/errors';
import { type AuthEvent, type AuthEventType, type NewAuthEvent } from '../audit/auth-event';
import { eventId, isEventId } from '../audit/event-ids';
import type { WebhookQueue } from './webhooks';

/** What a handler may know of the request behind an event, beyond the event: never kept or sent anywhere. */
export interface EventOrigin {
  /** The request's `Accept-Language` (a notice speaks it). */
  acceptLanguage?: string | undefined;
}

/** A handler of events; what it returns or throws never reaches the request that caused the event. */
export type EventHandler = (event: AuthEvent, origin: EventOrigin) => void | Promise<void>;

/** How a handler is run (`events.on(type, handler, options)`). */
export interface EventHandlerOptions {
  /**
   * Makes the handler a duty named so (stable across versions and instances, such as
   * `scim:end-tokens`): a handler that ends access must finish. A failed run is queued in the
   * state store and run again, by any instance that registered the duty, until it succeeds (for up
   * to three days). It must be safe to run twice. @default undefined (a failure is logged only)
   */
  retryAs?: string | undefined;
}

/** Where an event happened: the client, as the request showed it (hashed and summarized before anything keeps it). */
export interface EventClient {
  ip?: string | undefined;
  userAgent?: string | undefined;
  /** Given to handlers only (see {@link EventOrigin}). */
  acceptLanguage?: string | undefined;
}

/** The client of a login request, as events record it. */
export function clientOf(req: { ip: string; raw: IncomingMessage }): EventClient {
  return { ip: req.ip, userAgent: req.raw.headers['user-agent'], acceptLanguage: req.raw.headers['accept-language'] };
}

/** The client of an Express request (the IP as `trust proxy` says), as events and sessions record it. */
export function requestClient(req: AddressedRequest & IncomingMessage): { ip: string; userAgent: string | undefined; acceptLanguage: string | undefined } {
  return { ip: clientIp(req), userAgent: req.headers['user-agent'], acceptLanguage: req.headers['accept-language'] };
}

/** What {@link EventBus.list} takes. */
export interface EventListOptions {
  userId?: string | undefined;
  types?: readonly AuthEventType[] | undefined;
  /** ms since the epoch, inclusive. */
  from?: number | undefined;
  /** ms since the epoch, exclusive. */
  to?: number | undefined;
  /** The `next` of the previous page. */
  cursor?: string | undefined;
  /** 1 to 100. @default 20 */
  limit?: number | undefined;
}

/** What {@link EventBus} needs. */
export interface EventBusOptions {
  /** The audit log; `undefined` keeps no log (handlers still run). */
  store: AuditStore | undefined;
  /** The key IPs are hashed with (the service's secret for its issuer). */
  ipKey(): Promise<string>;
  logger: Logger;
  /** Events older than this (ms) are purged from the log, hourly. */
  retentionMs: number;
  /** Queues each event for the webhooks that want it. */
  webhooks?: WebhookQueue | undefined;
  /** The event types a query may name (the core's and the plugins'). */
  types: ReadonlySet<string>;
}

const PURGE_EVERY_MS = 3_600_000;
/** How long a duty whose retry could not be queued is run again in this process. */
const MAX_LOCAL_RETRY_MS = 3_600_000;

/**
 * The security events of a service (`auth.events`): `on(type | '*', handler)`. `emit` returns at
 * once; the event is recorded in the audit log and handed to the handlers afterwards, so they
 * can never change or break the answer of the request that caused it. A failing handler or log
 * is logged (by type and name only), never thrown.
 */
export class EventBus {
  private readonly handlers = new Map<string, Set<EventHandler>>();
  private readonly duties = new WeakMap<EventHandler, string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private closed = false;
  private readonly purger: NodeJS.Timeout | undefined;

  /** @param options - the audit log, the IP key, the logger and the retention. */
  constructor(private readonly options: EventBusOptions) {
    if (options.store !== undefined) {
      const purge = (): void => void this.track(this.purge());
      this.purger = setInterval(purge, PURGE_EVERY_MS).unref();
    }
  }

  /**
   * Calls `handler` for every event of `type` (or every event, `'*'`); returns a function that stops
   * it. With `retryAs`, a failed run is run again until it succeeds (see {@link EventHandlerOptions}).
   */
  on(type: AuthEventType | '*', handler: EventHandler, options: EventHandlerOptions = {}): () => void {
    const set = this.handlers.get(type) ?? new Set();
    // Its own function object: the same handler may be a duty of two types under two names.
    const added: EventHandler = (event, origin) => handler(event, origin);
    if (options.retryAs !== undefined) {
      if (!/^[a-z0-9][a-z0-9:._-]{0,63}$/.test(options.retryAs))
        throw configError(`events.on: retryAs ${JSON.stringify(options.retryAs.slice(0, 70))} must be a name of lower-case letters, digits and : . _ -`);
      const name = `${options.retryAs}@${type}`;
      this.duties.set(added, name);
      this.options.webhooks?.addDuty(name, async (event) => void (await handler(event, {})));
    }
    set.add(added);
    this.handlers.set(type, set);
    return () => void set.delete(added);
  }

  /** Records an event, after the current request's answer; `client` is hashed and summarized here. */
  emit(event: NewAuthEvent, client?: EventClient): void {
    countEvent(event);
    // Nobody to tell (no log, no webhooks, no handlers): nothing to do.
    if (this.options.store === undefined && this.options.webhooks?.active !== true && this.handlers.size === 0) return;
    const time = Date.now();
    const work = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const full: AuthEvent = { ...event, id: eventId(time), time, data: event.data ?? {}, ...(await this.clientFields(client)) };
      if (this.options.store !== undefined) {
        await this.options.store
          .append(full)
          .catch((err: unknown) => logTo(this.options.logger).warn('event {event} not written to the audit log: {error}', { event: full.type, error: errorName(err) }));
      }
      if (this.options.webhooks?.active) {
        await this.options.webhooks
          .enqueue(full)
          .catch((err: unknown) => logTo(this.options.logger).warn('event {event} not queued for webhooks: {error}', { event: full.type, error: errorName(err) }));
      }
      for (const handler of [...(this.handlers.get(full.type) ?? []), ...(this.handlers.get('*') ?? [])]) {
        try {
          await handler(structuredClone(full), { acceptLanguage: client?.acceptLanguage });
        } catch (err) {
          const duty = this.duties.get(handler);
          logTo(this.options.logger).warn('a handler of {event} failed{duty}: {error}', { event: full.type, duty: duty === undefined ? '' : ` (${duty}, tried again later)`, error: errorName(err) });
          if (duty !== undefined) this.retryLater(duty, handler, full, 0);
        }
      }
    });
    this.track(work);
  }

  /**
   * Queues a failed duty in the shared queue (any instance runs it again); while the queue cannot
   * be written either (the state store is down too), runs it again here after a growing wait.
   */
  private retryLater(duty: string, handler: EventHandler, event: AuthEvent, attempt: number): void {
    const queue = this.options.webhooks;
    const queued = queue === undefined ? Promise.reject(new Error('no queue')) : queue.retryDuty(duty, event);
    this.track(
      queued.catch(() => {
        if (this.closed) return;
        const timer = setTimeout(
          () => {
            this.retryTimers.delete(timer);
            this.track(
              Promise.resolve(handler(structuredClone(event), {})).catch(() => {
                if (Date.now() - event.time < MAX_LOCAL_RETRY_MS) this.retryLater(duty, handler, event, attempt + 1);
                else logTo(this.options.logger).error('{duty} of {event} (event {id}) given up: neither it nor the queue of retries worked for an hour', { duty, event: event.type, id: event.id });
              }),
            );
          },
          Math.min(60_000, 1000 * 2 ** attempt),
        ).unref();
        this.retryTimers.add(timer);
      }),
    );
  }

  private async clientFields(client: EventClient | undefined): Promise<Pick<AuthEvent, 'ip' | 'userAgent'>> {
    if (client === undefined) return {};
    const ip = client.ip
      ? createHmac('sha256', await this.options.ipKey())
          .update(`event-ip:${client.ip}`)
          .digest('base64url')
          .slice(0, 16)
      : undefined;
    return { ...(ip ? { ip } : {}), ...(client.userAgent !== undefined ? { userAgent: summarizeUserAgent(client.userAgent) } : {}) };
  }

  private track(work: Promise<unknown>): void {
    const done = work.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
  }

  private async purge(): Promise<void> {
    const store = this.options.store;
    if (store === undefined) return;
    await store.purge(Date.now() - this.options.retentionMs).catch((err: unknown) => logTo(this.options.logger).warn('the audit log was not purged: {error}', { error: errorName(err) }));
  }

  /**
   * A page of the audit log, newest first: of one user, of some types, within a time range; pass
   * `next` as `cursor` for the following page.
   * @throws AuthError `bad_request` for a malformed cursor, an unknown type or a limit outside 1 to 100; `not_found` without a log.
   */
  async list(query: EventListOptions = {}): Promise<{ events: AuthEvent[]; next?: string | undefined }> {
    const store = this.options.store;
    if (store === undefined) throw new AuthError('not_found', 'there is no audit log (auditStore: false)');
    const limit = query.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new AuthError('bad_request', 'limit must be a whole number from 1 to 100');
    if (query.cursor !== undefined && !isEventId(query.cursor)) throw new AuthError('bad_request', 'cursor is malformed: pass the next of the previous page');
    const unknown = query.types?.find((t) => !this.options.types.has(t));
    if (unknown !== undefined) throw new AuthError('bad_request', `no event type ${JSON.stringify(unknown.slice(0, 40))}`);
    for (const [name, value] of [
      ['from', query.from],
      ['to', query.to],
    ] as const) {
      if (value !== undefined && !Number.isFinite(value)) throw new AuthError('bad_request', `${name} must be a time (ms since the epoch)`);
    }
    return store.list({ userId: query.userId, types: query.types, from: query.from, to: query.to, after: query.cursor, limit });
  }

  /** Waits until every event emitted so far is written and handled. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Stops the purge and waits for what is under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.purger);
    for (const timer of this.retryTimers) clearTimeout(timer);
    await this.flush();
    await this.options.webhooks?.close();
  }
}
