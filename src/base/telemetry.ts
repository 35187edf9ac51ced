import type { Attributes, Counter, Histogram, Meter, MeterProvider, Span, Tracer, TracerProvider } from '@opentelemetry/api';

type Api = typeof import('@opentelemetry/api');

/**
 * The counters authgate keeps, by name (each documented in docs/operations.md). Attributes never
 * carry a token, a secret, an address or a user id.
 */
export const TELEMETRY_COUNTERS = {
  'authgate.logins': 'Logins finished, by provider and outcome (succeeded, or the refusal reason).',
  'authgate.signups': 'Accounts created, by method.',
  'authgate.second_factor': 'Second-factor checks, by outcome.',
  'authgate.sessions.revoked': 'Sessions ended before their time (sign-out of other sessions, admin, ban, recovery).',
  'authgate.token.refreshes': 'Session tokens refreshed, by outcome (refreshed or refused).',
  'authgate.step_ups': 'Credential changes refused until the user signs in again (step_up_required).',
  'authgate.lockouts': 'Logins refused because the account or address was locked after failures.',
  'authgate.rate_limited': 'Requests refused by a rate limit, by rule.',
  'authgate.captcha': 'CAPTCHA verifications, by outcome.',
  'authgate.scim.operations': 'SCIM requests, by operation and outcome.',
  'authgate.webhook.deliveries': 'Webhook delivery attempts, by outcome (delivered, retried, given_up).',
  'authgate.store.errors': 'Store calls that failed or timed out, by family and backend.',
} as const;

/** The histograms authgate keeps, by name. */
export const TELEMETRY_HISTOGRAMS = {
  'authgate.store.duration': 'Store call duration in seconds, by family, backend, operation and outcome.',
  'authgate.announcement.lag': 'Seconds an announcement between instances took to arrive (with the difference of their clocks).',
} as const;

/** A counter's name. */
export type TelemetryCounter = keyof typeof TELEMETRY_COUNTERS;
/** A histogram's name. */
export type TelemetryHistogram = keyof typeof TELEMETRY_HISTOGRAMS;
/** Attribute values of spans and metrics. */
export type TelemetryAttributes = Record<string, string | number | boolean | undefined>;

const SCOPE = 'authgate';
const HISTOGRAM_UNITS: Record<TelemetryHistogram, string> = { 'authgate.store.duration': 's', 'authgate.announcement.lag': 's' };
const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let api: Api | null | undefined;

/** `@opentelemetry/api` when it is installed and `AUTHGATE_TELEMETRY` is not `off`; looked up once. */
function otel(): Api | null {
  if (api === undefined) {
    api = null;
    if (process.env.AUTHGATE_TELEMETRY !== 'off') {
      try {
        // Optional: without the package every call here returns at once.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        api = require('@opentelemetry/api') as Api;
      } catch {
        api = null;
      }
    }
  }
  return api;
}

interface Instruments {
  provider: MeterProvider;
  meter: Meter;
  counters: Map<string, Counter>;
  histograms: Map<string, Histogram>;
}

let instruments: Instruments | undefined;
let tracer: { provider: TracerProvider; tracer: Tracer } | undefined;

/** The meter of the global provider now: an app may register its SDK after authgate started. */
function meterNow(otelApi: Api): Instruments {
  const provider = otelApi.metrics.getMeterProvider();
  if (instruments?.provider !== provider) {
    const meter = provider.getMeter(SCOPE);
    instruments = { provider, meter, counters: new Map(), histograms: new Map() };
    for (const watch of gaugeWatchers) watch(meter);
  }
  return instruments;
}

let noopTracerProvider: TracerProvider | undefined;
let noopMeterClass: unknown;

/** The tracer of the provider the app registered, or `undefined` while it registered none (spans would go nowhere). */
function liveTracer(otelApi: Api): Tracer | undefined {
  const global = otelApi.trace.getTracerProvider();
  const provider = global instanceof otelApi.ProxyTracerProvider ? global.getDelegate() : global;
  noopTracerProvider ??= new otelApi.ProxyTracerProvider().getDelegate();
  if (provider === noopTracerProvider) return undefined;
  if (tracer?.provider !== provider) tracer = { provider, tracer: provider.getTracer(SCOPE) };
  return tracer.tracer;
}

/** Whether the app registered a meter provider (before it does, the API's meter records nothing). */
function metersLive(otelApi: Api): boolean {
  noopMeterClass ??= otelApi.createNoopMeter().constructor;
  return meterNow(otelApi).meter.constructor !== noopMeterClass;
}

function clean(attributes: TelemetryAttributes | undefined): Attributes {
  const out: Attributes = {};
  if (attributes === undefined) return out;
  for (const [key, value] of Object.entries(attributes)) {
    // Attribute names are the instrumenting code's own (`authgate.*`, OpenTelemetry's), and the prototype's name is skipped anyway.
    // eslint-disable-next-line no-restricted-syntax
    if (value !== undefined && key !== '__proto__') out[key] = value;
  }
  return out;
}

/**
 * Whether spans or metrics go anywhere now: `@opentelemetry/api` is installed, not switched off,
 * and the app registered a tracer or a meter provider. Instrumented code does nothing more while not.
 */
export function telemetryOn(): boolean {
  const otelApi = otel();
  return otelApi !== null && (liveTracer(otelApi) !== undefined || metersLive(otelApi));
}

/**
 * Adds `by` to a counter: one of {@link TELEMETRY_COUNTERS}, or a plugin's own (name it
 * `<plugin>.<what>`). Nothing happens without `@opentelemetry/api` or without a registered SDK.
 */
export function count(name: TelemetryCounter | (string & {}), attributes?: TelemetryAttributes, by = 1): void {
  const otelApi = otel();
  if (otelApi === null) return;
  const made = meterNow(otelApi);
  let counter = made.counters.get(name);
  if (counter === undefined) {
    counter = made.meter.createCounter(name, { description: (TELEMETRY_COUNTERS as Record<string, string>)[name] ?? '' });
    made.counters.set(name, counter);
  }
  counter.add(by, clean(attributes));
}

/** Records a value in a histogram: one of {@link TELEMETRY_HISTOGRAMS} (in seconds), or a plugin's own. */
export function record(name: TelemetryHistogram | (string & {}), value: number, attributes?: TelemetryAttributes): void {
  const otelApi = otel();
  if (otelApi === null) return;
  const made = meterNow(otelApi);
  let histogram = made.histograms.get(name);
  if (histogram === undefined) {
    const unit = (HISTOGRAM_UNITS as Record<string, string>)[name] ?? '';
    histogram = made.meter.createHistogram(name, {
      description: (TELEMETRY_HISTOGRAMS as Record<string, string>)[name] ?? '',
      unit,
      // The SDK's default buckets are made for milliseconds; store calls take 1 ms to seconds.
      ...(unit === 's' ? { advice: { explicitBucketBoundaries: SECONDS_BUCKETS } } : {}),
    });
    made.histograms.set(name, histogram);
  }
  histogram.record(value, clean(attributes));
}

const gaugeWatchers: Array<(meter: Meter) => void> = [];

/**
 * An observable gauge read at each collection: `read` gives the values by attribute set. Set up
 * again on every meter provider the app registers.
 */
export function watchGauge(name: string, description: string, unit: string, read: () => Array<[number, TelemetryAttributes]>): void {
  const watch = (meter: Meter): void => {
    meter.createObservableGauge(name, { description, unit }).addCallback((result) => {
      for (const [value, attributes] of read()) result.observe(value, clean(attributes));
    });
  };
  gaugeWatchers.push(watch);
  if (instruments !== undefined) watch(instruments.meter);
}

/** A span in progress: what it ends with is set on it. */
export interface SpanRecord {
  /** Adds attributes (only those with a value). */
  set(attributes: TelemetryAttributes): void;
  /** Marks the span failed with a stable code (never a message: messages may quote what they were given). */
  fail(code: string): void;
}

const NO_SPAN: SpanRecord = { set: () => undefined, fail: () => undefined };

function recordOf(span: Span): SpanRecord {
  return {
    set: (attributes) => void span.setAttributes(clean(attributes)),
    fail: (code) => {
      span.setAttribute('error.type', code);
      span.setStatus({ code: 2 });
    },
  };
}

/** A code naming an error for telemetry: its `code`, else its class name. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[\w.-]{1,64}$/.test(code)) return code;
  return err instanceof Error ? err.name : typeof err;
}

/**
 * Runs `work` in a span (the current span's child, and the parent of the spans inside it) named
 * `name`, ended when the work settles; a failure marks it with the error's code. Without
 * `@opentelemetry/api`, `work` runs as it is.
 */
export function inSpan<T>(name: string, attributes: TelemetryAttributes, work: (span: SpanRecord) => Promise<T>): Promise<T> {
  const otelApi = otel();
  const live = otelApi === null ? undefined : liveTracer(otelApi);
  if (live === undefined) return work(NO_SPAN);
  return live.startActiveSpan(name, { attributes: clean(attributes) }, async (span) => {
    try {
      return await work(recordOf(span));
    } catch (err) {
      recordOf(span).fail(errorCode(err));
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Starts a span that the caller ends (a request's, ended when the answer is sent), and runs `next`
 * with it as the current span. Without `@opentelemetry/api`, `next` runs as it is.
 * @returns the function that ends the span with the attributes given to it.
 */
export function startSpan(name: string, attributes: TelemetryAttributes, next: (span: SpanRecord) => void): (end: TelemetryAttributes, finalName?: string, failure?: string) => void {
  const otelApi = otel();
  const live = otelApi === null ? undefined : liveTracer(otelApi);
  if (otelApi === null || live === undefined) {
    next(NO_SPAN);
    return () => undefined;
  }
  const span = live.startSpan(name, { attributes: clean(attributes) });
  const record = recordOf(span);
  otelApi.context.with(otelApi.trace.setSpan(otelApi.context.active(), span), () => next(record));
  return (end, finalName, failure) => {
    if (finalName !== undefined) span.updateName(finalName);
    span.setAttributes(clean(end));
    if (failure !== undefined) record.fail(failure);
    span.end();
  };
}

/** The trace and span id of the current span, for a log line; `undefined` outside a recorded span. */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const otelApi = otel();
  if (otelApi === null) return undefined;
  const span = otelApi.trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/**
 * Calls `call` in a span named `name` and returns what it returns, unchanged: a promise ends the
 * span when it settles, anything else at once. Without `@opentelemetry/api` it is `call()`.
 */
export function traced<T>(name: string, attributes: TelemetryAttributes, call: () => T, settled?: (failure: string | undefined) => void): T {
  const otelApi = otel();
  const live = otelApi === null ? undefined : liveTracer(otelApi);
  if (otelApi === null || live === undefined) {
    let result: T;
    try {
      result = call();
    } catch (err) {
      settled?.(errorCode(err));
      throw err;
    }
    if (settled !== undefined) {
      if (result instanceof Promise)
        result.then(
          () => settled(undefined),
          (err: unknown) => settled(errorCode(err)),
        );
      else settled(undefined);
    }
    return result;
  }
  const span = live.startSpan(name, { attributes: clean(attributes) });
  const end = (failure: string | undefined): void => {
    if (failure !== undefined) recordOf(span).fail(failure);
    span.end();
    settled?.(failure);
  };
  let result: T;
  try {
    result = otelApi.context.with(otelApi.trace.setSpan(otelApi.context.active(), span), call);
  } catch (err) {
    end(errorCode(err));
    throw err;
  }
  if (result instanceof Promise) {
    result.then(
      () => end(undefined),
      (err: unknown) => end(errorCode(err)),
    );
  } else end(undefined);
  return result;
}
