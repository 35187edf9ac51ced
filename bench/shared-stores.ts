import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, timed } from './lib/stats';
import { printTable, verdict } from './lib/table';
import { startPostgres, startRedis } from '../test/support/servers';

/**
 * Shared stores on real servers started for the run: the protected route and rate-limited direct
 * login with the state store in Redis vs in memory (interleaved), and the PostgreSQL account store's
 * `POST /tokens` p50 with 1,000 vs 1,000,000 accounts (alternating).
 */
export async function sharedStores(args: BenchArgs): Promise<string> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const accounts = args.quick ? 100_000 : 1_000_000;
  const child = await startChild('shared', { REDIS_URL: redis.url, DATABASE_URL: pg.url, ACCOUNTS: String(accounts) });
  try {
    const info = child.info as { ports: Record<string, number>; memory: { cookie: string; xsrf: string }; redis: { cookie: string; xsrf: string } };
    let n = 0;
    const variants: Record<string, () => Promise<LoadResult>> = {};
    const span = { seconds: args.quick ? 0.4 : 3 };
    for (const store of ['memory', 'redis'] as const) {
      const port = info.ports[store]!;
      const s = info[store];
      variants[`protected, state in ${store}`] = () => load({ url: `http://127.0.0.1:${port}/private`, headers: { cookie: s.cookie, 'x-xsrf-token': s.xsrf }, ...span });
      variants[`rate-limited login, state in ${store}`] = () =>
        load({ url: `http://127.0.0.1:${port}/auth/local/login`, method: 'POST', headers: { 'content-type': 'application/json' }, makeBody: () => `{"user":"user-${++n}","passwd":"x"}`, ...span });
    }
    for (const run of Object.values(variants)) await run();
    const runs = await interleave(Object.keys(variants), args.quick ? 3 : 5, async (name) => {
      const r = await variants[name]!();
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r;
    });
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const times: Record<'small' | 'large', number[]> = { small: [], large: [] };
    const rounds = args.quick ? 100 : 600;
    for (let i = 0; i < rounds; i++) {
      for (const name of ['small', 'large'] as const) {
        const email = `user${1 + ((i * 7919) % 1000)}@example.com`;
        times[name].push(
          await timed(() =>
            fetch(`http://127.0.0.1:${info.ports[name]}/account/tokens`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ grant_type: 'password', email, password: 'scale-password' }),
            }),
          ),
        );
      }
    }
    const p50 = (name: 'small' | 'large'): number => median(times[name].slice(Math.floor(rounds / 10)));
    const protectedRatio = rps('protected, state in redis') / rps('protected, state in memory');
    const loginRatio = rps('rate-limited login, state in redis') / rps('rate-limited login, state in memory');
    const scale = p50('large') / p50('small');
    return printTable(
      `Shared stores on real servers: Redis vs memory state store (32 connections), PostgreSQL accounts 1,000 vs ${accounts.toLocaleString('en')}`,
      ['variant', 'req/s (median) or p50 ms'],
      [...Object.keys(variants).map((name) => [name, rps(name)]), ['POST /account/tokens p50 ms, 1,000 accounts', p50('small')], [`POST /account/tokens p50 ms, ${accounts} accounts`, p50('large')]],
      [
        `state in Redis / in memory: protected route ${protectedRatio.toFixed(2)}, rate-limited login ${loginRatio.toFixed(2)}`,
        `PostgreSQL /tokens p50, ${accounts} / 1,000 accounts = ${scale.toFixed(2)} (target <= 1.2: ${verdict(scale <= 1.2)})`,
      ],
    );
  } finally {
    await child.stop();
    await Promise.all([pg.destroy(), redis.destroy()]);
  }
}
