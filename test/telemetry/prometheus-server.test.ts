import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { freePort } from '../support/ports';
import { spawnReady, type ReadyProcess } from '../support/ready-process';
import { describeRedis, startChild, startRedis, type TestServer } from '../support/servers';
import type { TrackedChild } from '../support/children';

const PROMETHEUS = '/usr/bin/prometheus';
const RULES = join(__dirname, '..', '..', 'docs', 'monitoring', 'authgate-alerts.yml');
const describeProm = existsSync(PROMETHEUS) || process.env.AUTHGATE_REQUIRE_SERVERS === '1' ? describeRedis : describe.skip;

interface Instance {
  process: ReadyProcess;
  port: number;
  metricsPort: number;
}

async function startInstance(stateStore: string): Promise<Instance> {
  const metricsPort = await freePort();
  const child = await spawnReady(['--import', 'tsx', join(__dirname, '..', 'support', 'metrics-instance.ts')], {
    env: { ...process.env, STATE_STORE: stateStore, METRICS_PORT: String(metricsPort) },
    timeoutMs: 60_000,
  });
  return { process: child, port: (JSON.parse(child.payload) as { port: number }).port, metricsPort };
}

const loginAt = (instance: Instance, password: string): Promise<number> =>
  fetch(`http://127.0.0.1:${instance.port}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'pat', passwd: password }) }).then(
    (r) => r.status,
  );

describeProm('a real Prometheus scraping two instances over a shared Redis, through a failover of the store', () => {
  let redis: TestServer;
  let dir: string;
  let prometheus: TrackedChild;
  let promPort: number;
  const instances: Instance[] = [];

  /** The value of a PromQL query over Prometheus's HTTP API (the first sample; NaN when there is none). */
  const query = async (promql: string): Promise<number> => {
    const answer = (await (await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { data: { result: Array<{ value: [number, string] }> } };
    return Number(answer.data.result[0]?.value[1] ?? NaN);
  };

  beforeAll(async () => {
    redis = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'authgate-prometheus-'));
    instances.push(await startInstance(redis.url), await startInstance(redis.url));
    promPort = await freePort();
    const targets = instances.map((i) => `'127.0.0.1:${i.metricsPort}'`).join(', ');
    await writeFile(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: ['${RULES}']\nscrape_configs:\n  - job_name: authgate\n    static_configs:\n      - targets: [${targets}]\n`,
    );
    prometheus = await startChild(
      PROMETHEUS,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`],
      'Server is ready to receive web requests',
      'prometheus',
    );
  }, 120_000);

  afterAll(async () => {
    await prometheus?.stop();
    await Promise.all(instances.map((i) => i.process.stop()));
    await redis?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('counts the logins of both instances, loads the alert rules, and sees store errors and the degraded mode while Redis is down, then recovery', async () => {
    const [one, two] = instances as [Instance, Instance];
    // Under load: 400 logins in waves of 40 at once, over both instances, while Prometheus scrapes every second.
    const outcomes: number[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const sent = [...Array.from({ length: 32 }, (_, i) => loginAt(i % 2 ? one : two, 'pw')), ...Array.from({ length: 8 }, (_, i) => loginAt(i % 2 ? one : two, 'wrong'))];
      outcomes.push(...(await Promise.all(sent)));
    }
    expect(outcomes.filter((s) => s === 200)).toHaveLength(320);
    await eventually(async () => expect(await query('sum(authgate_logins_total{authgate_outcome="succeeded"})')).toBe(320), 30_000, 500);
    await eventually(async () => expect(await query('sum(authgate_logins_total{authgate_outcome="credentials_rejected"})')).toBe(80), 30_000, 500);
    // Each instance counted its own half.
    expect(await query('min(sum by (instance) (authgate_logins_total{authgate_outcome="succeeded"}))')).toBe(160);
    expect(await query('count(count by (instance) (authgate_logins_total))')).toBe(2);
    const rules = (await (await fetch(`http://127.0.0.1:${promPort}/api/v1/rules`)).json()) as { data: { groups: Array<{ rules: unknown[] }> } };
    expect(rules.data.groups.flatMap((g) => g.rules)).toHaveLength(8);

    // The failover: the shared store stops; logins answer 503 and say why in the metrics.
    await redis.stop();
    const during = await Promise.all([loginAt(one, 'pw'), loginAt(two, 'pw')]);
    expect(during).toEqual([503, 503]);
    await eventually(async () => expect(await query('sum(authgate_store_errors_total{authgate_store_family="state",authgate_store_backend="redis"})')).toBeGreaterThanOrEqual(2), 30_000, 500);
    await eventually(async () => expect(await query('count(authgate_store_degraded > 0)')).toBe(2), 30_000, 500);
    expect(await query('sum(authgate_logins_total{authgate_outcome="succeeded"})')).toBe(320);

    await redis.restart();
    // Tries before both instances reconnect may still let one login in: each success counts.
    let afterRestart = 0;
    await eventually(
      async () => {
        const answered = [await loginAt(one, 'pw'), await loginAt(two, 'pw')];
        afterRestart += answered.filter((status) => status === 200).length;
        expect(answered).toEqual([200, 200]);
      },
      30_000,
      500,
    );
    await eventually(async () => expect(await query('max(authgate_store_degraded)')).toBe(0), 30_000, 500);
    await eventually(async () => expect(await query('sum(authgate_logins_total{authgate_outcome="succeeded"})')).toBe(320 + afterRestart), 30_000, 500);
  }, 180_000);
});
