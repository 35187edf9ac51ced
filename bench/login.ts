import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable, verdict } from './lib/table';

/** Direct login (trivial checker, avatar already stored) against one protected request, same server. */
export async function login(args: BenchArgs): Promise<string> {
  const child = await startChild('login');
  try {
    const { port, cookie, xsrf } = child.info as { port: number; cookie: string; xsrf: string };
    const variants: Record<string, Parameters<typeof load>[0]> = {
      'direct login (POST JSON)': { url: `http://127.0.0.1:${port}/auth/local/login`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"bench","passwd":"x"}' },
      'direct login, auditStore: false (no events kept)': {
        url: `http://127.0.0.1:${port}/quiet/local/login`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"user":"bench","passwd":"x"}',
      },
      'protected request': { url: `http://127.0.0.1:${port}/private`, headers: { cookie, 'x-xsrf-token': xsrf } },
    };
    const span = { seconds: args.quick ? 0.4 : 4 };
    for (const v of Object.values(variants)) await load({ ...v, seconds: 0.2 });
    const runs = await interleave(Object.keys(variants), args.quick ? 5 : 7, async (name) => {
      const r = await load({ ...variants[name]!, ...span });
      if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} non-2xx`);
      return r;
    });
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const rows = Object.keys(variants).map((name) => {
      const list = runs.get(name) as LoadResult[];
      return [name, rps(name), `±${spread(list.map((r) => r.rps)).toFixed(0)}%`, median(list.map((r) => r.p99))];
    });
    const cost = rps('protected request') / rps('direct login (POST JSON)');
    const events = 1 - rps('direct login (POST JSON)') / rps('direct login, auditStore: false (no events kept)');
    return printTable('Login: direct login vs one protected request, 32 connections', ['variant', 'req/s (median)', 'spread', 'p99 ms'], rows, [
      `cost of a login / cost of a protected request = ${cost.toFixed(2)} (target <= 3: ${verdict(cost <= 3)})`,
      `what the security events (login.succeeded into the memory audit log) cost a login: ${(events * 100).toFixed(1)} % (target <= 5 %: ${verdict(events <= 0.05)})`,
    ]);
  } finally {
    await child.stop();
  }
}
