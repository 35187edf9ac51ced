import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import express from 'express';
import request from 'supertest';
import { jsonLogger } from '../../src';
import { telemetryOn } from '../../src/base/telemetry';
import { AnnouncementHeartbeat } from '../../src/core/state/announcement-heartbeat';
import { MemoryStateStore } from '../../src';
import { login, makeApp, SECRET } from '../support/auth-app';
import { createIdpApp } from '../support/idp-app';
import { describeRedis, startRedis, type TestServer } from '../support/servers';
import { eventually } from '../support/eventually';

/** Reads the SDK's metrics when the test asks (no timer). */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const reader = new TestReader();

/** Every data point of `name` now, with its attributes. */
async function points(name: string): Promise<Array<DataPoint<number | Histogram>>> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as Array<DataPoint<number | Histogram>>));
}

const sum = (found: Array<DataPoint<number | Histogram>>, where: Record<string, unknown>): number =>
  found.filter((p) => Object.entries(where).every(([k, v]) => p.attributes[k] === v)).reduce((total, p) => total + (p.value as number), 0);

const finished = (): ReadableSpan[] => spans.getFinishedSpans();

beforeAll(() => {
  // The API alone (no SDK yet): authgate's instrumentation stands aside.
  expect(telemetryOn()).toBe(false);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  expect(telemetryOn()).toBe(true);
});

afterAll(() => {
  // The API's globals are shared by the test files of this worker.
  trace.disable();
  metrics.disable();
  context.disable();
});

beforeEach(() => spans.reset());

describe('OpenTelemetry with an SDK registered by the app', () => {
  it('traces each auth route by its route, with the store calls inside it, and never a token, an address or a user id', async () => {
    const { app, auth } = makeApp();
    try {
      const { jwt } = await login(app, 'alice@example.com');
      await request(app).post('/auth/local/login').send({ user: 'alice@example.com', passwd: 'wrong' }).expect(403);
      const routes = finished().filter((s) => s.name.startsWith('authgate POST'));
      expect(routes.map((s) => [s.name, s.attributes['http.route'], s.attributes['authgate.provider'], s.attributes['http.response.status_code'], s.attributes['authgate.outcome']])).toEqual([
        ['authgate POST /auth/:provider/:action', '/auth/:provider/:action', 'local', 200, 'ok'],
        ['authgate POST /auth/:provider/:action', '/auth/:provider/:action', 'local', 403, 'forbidden'],
      ]);
      // A refusal is the route working: only a 5xx marks the span failed.
      expect(routes.map((s) => s.status.code)).toEqual([0, 0]);
      const stores = finished().filter((s) => s.name.startsWith('authgate.store '));
      expect(stores.length).toBeGreaterThan(0);
      const routeIds = new Set(routes.map((s) => s.spanContext().spanId));
      // Store calls of the login are children of its route span.
      expect(stores.some((s) => routeIds.has(s.parentSpanContext?.spanId ?? ''))).toBe(true);
      expect(stores[0]!.attributes['authgate.store.backend']).toBe('memory');
      const everything = JSON.stringify(finished().map((s) => [s.name, s.attributes]));
      expect(everything).not.toContain('alice');
      expect(everything).not.toContain(jwt.slice(0, 20));
      expect(everything).not.toContain(SECRET);
    } finally {
      await auth.close();
    }
  });

  it('counts logins by provider and outcome, rate-limit refusals by rule, and store call durations', async () => {
    const { app, auth } = makeApp({ rateLimits: { loginPerUser: { limit: 1, windowMs: 60_000 } } });
    try {
      const before = await points('authgate.logins');
      const succeeded = sum(before, { 'authgate.provider': 'local', 'authgate.outcome': 'succeeded' });
      await login(app, 'bob');
      await request(app).post('/auth/local/login').send({ user: 'bob', passwd: 'wrong' });
      await request(app).post('/auth/local/login').send({ user: 'bob', passwd: 'wrong' });
      await auth.events.flush();
      const after = await points('authgate.logins');
      expect(sum(after, { 'authgate.provider': 'local', 'authgate.outcome': 'succeeded' })).toBe(succeeded + 1);
      expect(sum(after, { 'authgate.provider': 'local', 'authgate.outcome': 'credentials_rejected' })).toBeGreaterThanOrEqual(1);
      expect(sum(await points('authgate.rate_limited'), { 'authgate.rule': 'loginPerUser' })).toBeGreaterThanOrEqual(1);
      const durations = await points('authgate.store.duration');
      const stateGets = durations.filter((p) => p.attributes['authgate.store.family'] === 'state' && p.attributes['authgate.outcome'] === 'ok');
      expect(stateGets.length).toBeGreaterThan(0);
      expect((stateGets[0]!.value as Histogram).count).toBeGreaterThan(0);
    } finally {
      await auth.close();
    }
  });

  it('counts step-ups: a credential change refused until the user signs in again', async () => {
    const { app, auth } = makeApp({ twoFactor: { key: 'telemetry-test-2fa-key-0123456789abcdef' } });
    try {
      const before = sum(await points('authgate.step_ups'), { 'authgate.outcome': 'required' });
      const { jwt } = await login(app, 'kim');
      // A token in a header is no session cookie: enrolling a second factor needs one.
      const refused = await request(app).post('/auth/2fa/enroll').set('X-JWT', jwt);
      expect([refused.status, refused.body.code]).toEqual([403, 'step_up_required']);
      expect(sum(await points('authgate.step_ups'), { 'authgate.outcome': 'required' })).toBe(before + 1);
    } finally {
      await auth.close();
    }
  });

  it('writes JSON lines in pino shape with the trace and span id of the request that logged', async () => {
    const lines: string[] = [];
    const { app, auth } = makeApp({ logger: jsonLogger({ write: (line) => void lines.push(line) }), stateStore: 'postgres://127.0.0.1:1/nowhere', storeTimeout: 300 });
    try {
      // The state store cannot be reached: the login route logs the failure inside its span.
      await request(app).post('/auth/local/login').send({ user: 'carol', passwd: 'pw' });
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const failure = parsed.find((line) => line.level === 50 && typeof line.trace_id === 'string');
      expect(failure).toMatchObject({ name: 'authgate', code: 'unavailable' });
      expect(typeof failure?.msg).toBe('string');
      expect(finished().some((s) => s.spanContext().traceId === failure?.trace_id)).toBe(true);
      expect(lines.every((line) => line.endsWith('\n') && !line.includes('test-secret'))).toBe(true);
    } finally {
      await auth.close();
    }
  });
});

describe('the identity provider', () => {
  it('traces its endpoints on the router the app mounts, and health checks its signing keys', async () => {
    const { app, auth } = createIdpApp('http://127.0.0.1:8080', { clients: [] });
    try {
      await request(app).get('/oidc/.well-known/openid-configuration').expect(200);
      expect(finished().some((s) => s.name.startsWith('authgate GET') && s.attributes['http.response.status_code'] === 200)).toBe(true);
      const report = await auth.health();
      expect(report.checks.find((c) => c.name === 'identity provider keys')).toMatchObject({ ok: true });
      expect(report.status).toBe('ok');
    } finally {
      await auth.close();
    }
  });
});

describe('the announcement heartbeat', () => {
  it('records how long announcements between instances take to arrive', async () => {
    const store = new MemoryStateStore();
    const heartbeat = new AnnouncementHeartbeat(store, 50);
    try {
      await eventually(async () => expect(((await points('authgate.announcement.lag'))[0]?.value as Histogram | undefined)?.count ?? 0).toBeGreaterThan(0), 5000, 50);
    } finally {
      await heartbeat.close();
      await store.close();
    }
  });
});

describe('auth.health() and the health routes', () => {
  it('reports every store, the signing key and an ok status on memory stores; /livez and /readyz answer 200', async () => {
    const { auth } = makeApp();
    try {
      const report = await auth.health();
      expect(report.status).toBe('ok');
      expect(report.checks.map((c) => c.name)).toEqual(['state store', 'user store', 'credential store', 'avatar store', 'audit store', 'signing key']);
      const internal = express().use(auth.healthRouter());
      expect((await request(internal).get('/livez')).status).toBe(200);
      const ready = await request(internal).get('/readyz');
      expect([ready.status, ready.body.status, ready.headers['cache-control']]).toEqual([200, 'ok', 'no-store']);
      // Another method gets a JSON 405; another path is left to the app.
      const posted = await request(internal)
        .post('/readyz')
        .send({ __proto__: { admin: true } });
      expect([posted.status, posted.headers.allow, posted.body.code]).toEqual([405, 'GET', 'method_not_allowed']);
      expect((await request(internal).get('/elsewhere')).status).toBe(404);
    } finally {
      await auth.close();
    }
  });
});

describeRedis('health and the degraded mode with a Redis state store that stops', () => {
  let redis: TestServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  it('names the failing store (without its password) with since when, answers /readyz 503, reports the degraded gauge, and recovers', async () => {
    const url = redis.url.replace('redis://', 'redis://:hunter2-password@');
    const { app, auth } = makeApp({ stateStore: redis.url, storeTimeout: 500, revocationCheck: 'every-request' });
    try {
      // Ready once the announcements between instances are subscribed.
      await eventually(async () => expect((await auth.health()).checks.filter((c) => !c.ok)).toEqual([]));
      expect((await auth.health()).checks.some((c) => c.name.startsWith('announcements ('))).toBe(true);
      await redis.stop();
      await request(app).post('/auth/local/login').send({ user: 'dave', passwd: 'pw' });
      const report = await auth.health();
      const state = report.checks.find((c) => c.name === 'state store');
      expect(report.status).toBe('failing');
      expect(state?.ok).toBe(false);
      expect(state?.problem).toMatch(/^the state store \(redis:\/\/127\.0\.0\.1:\d+\)/);
      expect(state?.problem).toMatch(/failing since \d{4}-\d\d-\d\dT/);
      expect(JSON.stringify(report)).not.toContain('hunter2');
      expect(url).toContain('hunter2');
      const ready = await request(express().use(auth.healthRouter())).get('/readyz');
      expect([ready.status, ready.body.status]).toEqual([503, 'failing']);
      const degraded = await points('authgate.store.degraded');
      expect(degraded.some((p) => String(p.attributes['authgate.store']).startsWith('the state store') && (p.value as number) >= 0)).toBe(true);
      expect(sum(await points('authgate.store.errors'), { 'authgate.store.family': 'state', 'authgate.store.backend': 'redis' })).toBeGreaterThan(0);
      await redis.restart();
      await eventually(async () => expect((await auth.health()).status).toBe('ok'));
      expect((await points('authgate.store.degraded')).filter((p) => String(p.attributes['authgate.store']).startsWith('the state store (redis')).map((p) => p.value)).toEqual([0]);
    } finally {
      await auth.close();
    }
  }, 60_000);
});
