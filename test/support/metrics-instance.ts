// One instance of a test app for Prometheus to scrape: authgate with the direct provider `local`
// (password `pw`), a shared state store (STATE_STORE), and OpenTelemetry's Prometheus exporter on
// METRICS_PORT. Prints `READY {"port":…}` once both listen.
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createAuth } from '../../src';

const exporter = new PrometheusExporter({ port: Number(process.env.METRICS_PORT), host: '127.0.0.1', preventServerStart: true });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }));
const auth = createAuth({
  url: 'http://127.0.0.1:8080',
  secret: 'metrics-instance-secret-0123456789-abcdef',
  stateStore: process.env.STATE_STORE,
  // Long enough for 40 logins at once on a busy machine; a stopped Redis still answers 503 within it.
  storeTimeout: 2000,
  rateLimits: false,
  avatarStore: 'noop://',
});
auth.addDirectProvider('local', (_user, password) => password === 'pw');
const app = express();
app.use('/auth', auth.handlers().authRouter);
void exporter.startServer().then(() => {
  const server = app.listen(0, '127.0.0.1', () => console.log(`READY ${JSON.stringify({ port: (server.address() as AddressInfo).port })}`));
});
