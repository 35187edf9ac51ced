import { count } from '../../base/telemetry';
import { createHash, createHmac } from 'node:crypto';
import { configError, errorName } from '../../base/errors';
import { safeFetch } from '../../internal/safe-fetch';
import { type Logger, logTo } from '../../base/logger';
import type { StateStore } from '../state/state-store';
import type { AuthEvent, AuthEventType } from '../audit/auth-event';

/** A receiver of events in the Standard Webhooks format (`createAuth({ webhooks: [...] })`). */
export interface WebhookOptions {
  /** Where events are POSTed (http or https). */
  url: string;
  /** The signing secret: `whsec_<base64>` (as Standard Webhooks libraries make them), or any text of at least 32 characters. */
  secret: string;
  /** The event types sent. @default every type */
  events?: readonly AuthEventType[] | undefined;
  /** Let the URL be on a private or loopback address (a receiver inside the network). @default false */
  allowPrivateNetwork?: boolean | undefined;
}

/** A checked {@link WebhookOptions}: its key for signing and a stable id (a hash of the URL). */
export interface Webhook {
  id: string;
  url: string;
  key: Buffer;
  events: ReadonlySet<string> | undefined;
  allowPrivateNetwork: boolean;
}

/** A delivery waiting in the shared queue: to a webhook, or a duty's run (its target `duty:<name>`). */
interface Delivery {
  hook: string;
  event: AuthEvent;
  attempt: number;
  /** When it may be tried (ms). */
  due: number;
}

const QUEUE = 'webhook-queue';
/** How long a queued delivery may wait at most, in ms (past the last retry). */
const QUEUE_TTL_MS = 3 * 86_400_000;
/** How long one instance holds a delivery it is trying: past it, another instance may try again. */
const CLAIM_MS = 60_000;
const DELIVERY_TIMEOUT_MS = 10_000;

/** The default waits between attempts, in ms: 8 attempts over about a day. */
export const WEBHOOK_BACKOFF_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000, 6 * 3_600_000, 18 * 3_600_000];

/**
 * The waits between a duty's runs after its first failed, in ms; the last repeats until the run
 * succeeds or its queued entry expires (three days).
 */
export const DUTY_BACKOFF_MS: readonly number[] = [1_000, 5_000, 15_000, 60_000];

const DUTY = 'duty:';

/** The `webhook-signature` of a delivery: `v1,<base64 HMAC-SHA-256 of id.timestamp.body>`. */
export function webhookSignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Checks the `webhooks` option at start-up. */
export function checkWebhooks(list: readonly WebhookOptions[] | undefined, types: ReadonlySet<string>): Webhook[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw configError('options.webhooks must be a list of { url, secret, events?, allowPrivateNetwork? }');
  return list.map((hook, i) => {
    const name = `options.webhooks[${i}]`;
    let url: URL;
    try {
      url = new URL(hook?.url);
    } catch {
      throw configError(`${name}.url must be an http or https URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError(`${name}.url must be an http or https URL`);
    if (typeof hook.secret !== 'string') throw configError(`${name}.secret is required`);
    const key = hook.secret.startsWith('whsec_') ? Buffer.from(hook.secret.slice(6), 'base64') : Buffer.from(hook.secret, 'utf8');
    if (key.length < 24 || (!hook.secret.startsWith('whsec_') && hook.secret.length < 32))
      throw configError(`${name}.secret must be whsec_<base64 of at least 24 bytes> or a text of at least 32 characters`);
    const unknown = hook.events?.find((t: string) => !types.has(t));
    if (unknown !== undefined) throw configError(`${name}.events: no event type ${JSON.stringify(unknown)}`);
    return {
      id: createHash('sha256').update(url.href).digest('hex').slice(0, 16),
      url: url.href,
      key,
      events: hook.events && new Set(hook.events),
      allowPrivateNetwork: hook.allowPrivateNetwork === true,
    };
  });
}

/**
 * Delivers events to webhooks from a queue in the state store that every instance shares: an
 * event is queued once (by the instance where it happened), any instance may deliver it, and one
 * does (each attempt is claimed). A failed attempt (not 2xx, no answer, a refused address) is
 * tried again after the backoff, with the same `webhook-id`; a queued delivery survives a restart
 * of a persistent store. Delivered at least once: an instance that dies while delivering leaves
 * the attempt to another after a minute.
 *
 * The same queue holds the retries of duties: handlers that end access (a ban ends the tokens a
 * user made), whose failed run is queued here and run again by any instance until it succeeds.
 */
export class WebhookQueue {
  private readonly hooks: Map<string, Webhook>;
  private readonly duties = new Map<string, (event: AuthEvent) => Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private closed = false;

  /**
   * @param state - the shared queue.
   * @param hooks - checked webhooks.
   * @param options - the logger, the backoff and how often the queue is read.
   */
  constructor(
    private readonly state: StateStore,
    hooks: readonly Webhook[],
    private readonly options: { logger: Logger; backoffMs: readonly number[]; pollMs: number },
  ) {
    this.hooks = new Map(hooks.map((h) => [h.id, h]));
  }

  /** Whether any webhook is configured. */
  get active(): boolean {
    return this.hooks.size > 0;
  }

  /** Starts reading the queue (every `pollMs`) when it has webhooks or duties. */
  start(): void {
    if ((this.active || this.duties.size > 0) && this.timer === undefined && !this.closed) this.timer = setInterval(() => void this.drain(), this.options.pollMs).unref();
  }

  /** Lets this instance run the queued retries of duty `name` (every instance that has the duty may run one). */
  addDuty(name: string, run: (event: AuthEvent) => Promise<void>): void {
    this.duties.set(`${DUTY}${name}`, run);
    this.start();
  }

  /** Queues a run of duty `name` for `event` after its first run failed (the first retry after a second). */
  async retryDuty(name: string, event: AuthEvent): Promise<void> {
    const delivery: Delivery = { hook: `${DUTY}${name}`, event, attempt: 0, due: Date.now() + (DUTY_BACKOFF_MS[0] as number) };
    await this.state.setMember(QUEUE, `${event.id}:${delivery.hook}`, delivery, QUEUE_TTL_MS);
  }

  /** Queues `event` for every webhook that wants it, then tries at once. */
  async enqueue(event: AuthEvent): Promise<void> {
    const now = Date.now();
    for (const hook of this.hooks.values()) {
      if (hook.events !== undefined && !hook.events.has(event.type)) continue;
      const delivery: Delivery = { hook: hook.id, event, attempt: 0, due: now };
      await this.state.setMember(QUEUE, `${event.id}:${hook.id}`, delivery, QUEUE_TTL_MS);
    }
    void this.drain();
  }

  /** Tries every due delivery once (one drain at a time in this process). */
  drain(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.draining ??= this.drainOnce()
      .catch((err: unknown) => logTo(this.options.logger).warn('the webhook queue could not be read: {error}', { error: errorName(err) }))
      .finally(() => (this.draining = undefined));
    return this.draining;
  }

  private async drainOnce(): Promise<void> {
    const now = Date.now();
    for (const { member, value } of await this.state.members<Delivery>(QUEUE)) {
      if (value.due > now || this.closed) continue;
      // A duty this instance does not run (another version's) waits for one that does, or expires.
      if (value.hook.startsWith(DUTY) && !this.duties.has(value.hook)) continue;
      if (!(await this.state.setIfAbsent(`webhook-claim:${member}:${value.attempt}`, 1, CLAIM_MS))) continue;
      const duty = this.duties.get(value.hook);
      if (duty !== undefined) {
        await this.runDuty(member, value, duty);
        continue;
      }
      const hook = this.hooks.get(value.hook);
      if (hook === undefined) {
        await this.state.deleteMember(QUEUE, member);
        continue;
      }
      const ok = await this.deliver(hook, value.event);
      const wait = ok ? undefined : this.options.backoffMs[value.attempt];
      count('authgate.webhook.deliveries', { 'authgate.outcome': ok ? 'delivered' : wait === undefined ? 'given_up' : 'retried' });
      if (ok) {
        await this.state.deleteMember(QUEUE, member);
        continue;
      }
      if (wait === undefined) {
        logTo(this.options.logger).warn('webhook {webhook}: event {id} dropped after {attempts} attempts', { webhook: hook.id, id: value.event.id, attempts: value.attempt + 1 });
        await this.state.deleteMember(QUEUE, member);
      } else {
        await this.state.setMember(QUEUE, member, { ...value, attempt: value.attempt + 1, due: Date.now() + wait }, QUEUE_TTL_MS);
      }
    }
  }

  private async runDuty(member: string, value: Delivery, duty: (event: AuthEvent) => Promise<void>): Promise<void> {
    try {
      await duty(structuredClone(value.event));
    } catch (err) {
      if (Date.now() - value.event.time > QUEUE_TTL_MS) {
        logTo(this.options.logger).error('{duty} of {event} (event {id}) given up after three days of failures: {error}', {
          duty: value.hook,
          event: value.event.type,
          id: value.event.id,
          error: errorName(err),
        });
        await this.state.deleteMember(QUEUE, member);
        return;
      }
      const wait = DUTY_BACKOFF_MS[Math.min(value.attempt + 1, DUTY_BACKOFF_MS.length - 1)] as number;
      logTo(this.options.logger).warn('{duty} of {event} failed again (attempt {attempt}): {error}', { duty: value.hook, event: value.event.type, attempt: value.attempt + 2, error: errorName(err) });
      await this.state.setMember(QUEUE, member, { ...value, attempt: value.attempt + 1, due: Date.now() + wait }, QUEUE_TTL_MS);
      return;
    }
    await this.state.deleteMember(QUEUE, member);
  }

  private async deliver(hook: Webhook, event: AuthEvent): Promise<boolean> {
    const body = JSON.stringify({ type: event.type, timestamp: new Date(event.time).toISOString(), data: event });
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      await safeFetch(hook.url, {
        timeoutMs: DELIVERY_TIMEOUT_MS,
        maxBytes: 64 * 1024,
        allowPrivateNetworks: hook.allowPrivateNetwork,
        maxRedirects: 0,
        accept: '*/*',
        headers: { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': webhookSignature(hook.key, event.id, timestamp, body) },
        post: { body: Buffer.from(body), contentType: 'application/json' },
      });
      return true;
    } catch (err) {
      logTo(this.options.logger).warn('webhook {webhook}: delivery of {id} failed: {error}', { webhook: hook.id, id: event.id, error: (err as Error)?.message ?? typeof err });
      return false;
    }
  }

  /** Stops reading the queue; what is queued stays for the other instances (or the next start). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.draining;
  }
}
