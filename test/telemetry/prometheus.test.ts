import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import request from 'supertest';
import { TELEMETRY_COUNTERS, TELEMETRY_HISTOGRAMS } from '../../src';
import { login, makeApp } from '../support/auth-app';
import { freePort } from '../support/ports';

const run = promisify(execFile);
const MONITORING = join(__dirname, '..', '..', 'docs', 'monitoring');
const PROMTOOL = '/usr/bin/promtool';
const LABELS = /^authgate_(outcome|provider|rule|store|store_family|store_backend|operation|method|reason|action)$/;

/** The names Prometheus shows for authgate's metrics: dots as underscores, `_total` on counters, `_bucket`, `_sum` and `_count` of histograms. */
function exposedNames(): Set<string> {
  const names = new Set<string>(['authgate_store_degraded']);
  for (const name of Object.keys(TELEMETRY_COUNTERS)) names.add(`${name.replace(/\./g, '_')}_total`);
  for (const name of Object.keys(TELEMETRY_HISTOGRAMS)) for (const part of ['bucket', 'sum', 'count']) names.add(`${name.replace(/\./g, '_')}_${part}`);
  return names;
}

describe('Prometheus: the exporter, the alert rules and the dashboard', () => {
  let exporter: PrometheusExporter;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    exporter = new PrometheusExporter({ port, host: '127.0.0.1', preventServerStart: true });
    await exporter.startServer();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [exporter] }));
  });

  afterAll(async () => {
    metrics.disable();
    await exporter.shutdown();
  });

  it('exposes logins, store calls and the degraded gauge under the names the rules and the dashboard use', async () => {
    const { app, auth } = makeApp();
    try {
      await login(app, 'frank');
      await request(app).post('/auth/local/login').send({ user: 'frank', passwd: 'nope' });
      await auth.events.flush();
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toMatch(/^authgate_logins_total\{[^}]*authgate_provider="local"[^}]*authgate_outcome="succeeded"[^}]*\} 1/m);
      expect(text).toMatch(/^authgate_logins_total\{[^}]*authgate_outcome="credentials_rejected"[^}]*\} 1/m);
      expect(text).toMatch(/^authgate_store_duration_bucket\{[^}]*authgate_store_family="state"[^}]*le="0.005"\} \d/m);
      expect(text).toMatch(/^authgate_store_degraded\{authgate_store="the state store \(memory:\/\/\)"[^}]*\} 0/m);
      expect(text).not.toContain('frank');
    } finally {
      await auth.close();
    }
  });

  it('refers only to metrics authgate exposes', () => {
    const known = exposedNames();
    for (const file of ['authgate-alerts.yml', 'authgate-dashboard.json']) {
      const used = new Set(readFileSync(join(MONITORING, file), 'utf8').match(/\bauthgate_[a-z_]+/g) ?? []);
      const unknown = [...used].filter((name) => !known.has(name) && !LABELS.test(name));
      expect([file, unknown]).toEqual([file, []]);
      expect(used.size).toBeGreaterThan(5);
    }
  });

  (existsSync(PROMTOOL) || process.env.AUTHGATE_REQUIRE_SERVERS === '1' ? it : it.skip)('promtool accepts the alert rules', async () => {
    const { stdout } = await run(PROMTOOL, ['check', 'rules', join(MONITORING, 'authgate-alerts.yml')]);
    expect(stdout).toMatch(/SUCCESS: 8 rules found/);
  });
});
