// Benchmark server: a protected route and the direct login, with telemetry as TELEMETRY says:
// `off` (AUTHGATE_TELEMETRY=off), `api` (@opentelemetry/api installed, no SDK registered) or `sdk`
// (a tracer provider with the batch span processor NodeSDK uses, an in-memory exporter, and a meter provider).
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import express from 'express';
import { announceWithSession } from '../lib/announce';
// authgate reads AUTHGATE_TELEMETRY and the registered providers when it first uses them, not at import.
import { createAuth, mustGetUser } from '../../src';

function main(): void {
  const mode = process.env.TELEMETRY ?? 'api';
  if (mode === 'off') process.env.AUTHGATE_TELEMETRY = 'off';
  if (mode === 'sdk') {
    const spans = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: spans })] }));
    const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 1000 });
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    // The exporter keeps what it is given: empty it, as a real one sends it away.
    setInterval(() => spans.reset(), 1000).unref();
  }
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'memory://', tokenDuration: 3_600_000 });
  auth.addDirectProvider('local', () => true);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => {
    res.json(mustGetUser(req));
  });
  announceWithSession(app.listen(0, '127.0.0.1'), 'bench');
}

main();
