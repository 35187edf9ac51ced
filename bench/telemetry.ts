import type { BenchArgs } from './lib/args';
import { startChild, type ChildServer } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable, verdict } from './lib/table';

const MODES = { off: 'telemetry off (AUTHGATE_TELEMETRY=off)', api: '@opentelemetry/api, no SDK registered', sdk: 'SDK registered, in-memory exporter' } as const;
type Mode = keyof typeof MODES;

/**
 * What telemetry costs: the protected route (m.auth, cookie and XSRF) and the direct login route
 * of the same app in three processes, with telemetry off, with the API but no SDK, and with an
 * SDK recording every span; interleaved in one run.
 */
export async function telemetryBench(args: BenchArgs): Promise<string> {
  const children = new Map<Mode, ChildServer>();
  try {
    for (const mode of Object.keys(MODES) as Mode[]) children.set(mode, await startChild('telemetry', { TELEMETRY: mode }));
    const info = (mode: Mode): { port: number; cookie: string; xsrf: string } => children.get(mode)!.info as { port: number; cookie: string; xsrf: string };
    const routes = {
      protected: (mode: Mode) => ({ url: `http://127.0.0.1:${info(mode).port}/private`, headers: { cookie: info(mode).cookie, 'x-xsrf-token': info(mode).xsrf } }),
      login: (mode: Mode) => ({
        url: `http://127.0.0.1:${info(mode).port}/auth/local/login?session=1`,
        method: 'POST' as const,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'bench', passwd: 'x' }),
      }),
    };
    const variants = (Object.keys(routes) as Array<keyof typeof routes>).flatMap((route) => (Object.keys(MODES) as Mode[]).map((mode) => `${route}|${mode}`));
    const seconds = args.quick ? 0.4 : 3;
    for (const v of variants) {
      const [route, mode] = v.split('|') as [keyof typeof routes, Mode];
      await load({ ...routes[route](mode), seconds: 0.2 });
    }
    const runs = await interleave(variants, args.quick ? 3 : 7, async (v) => {
      const [route, mode] = v.split('|') as [keyof typeof routes, Mode];
      const r = await load({ ...routes[route](mode), seconds });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${v}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r;
    });
    const rps = (v: string): number => median((runs.get(v) as LoadResult[]).map((r) => r.rps));
    const rows = variants.map((v) => {
      const [route, mode] = v.split('|') as [keyof typeof routes, Mode];
      return [
        `${route === 'protected' ? 'GET /private (m.auth)' : 'POST /auth/local/login'}, ${MODES[mode]}`,
        rps(v),
        `±${spread((runs.get(v) as LoadResult[]).map((r) => r.rps)).toFixed(0)}%`,
        (rps(v) / rps(`${route}|off`)).toFixed(3),
      ];
    });
    const ratio = (route: string, mode: Mode): number => rps(`${route}|${mode}`) / rps(`${route}|off`);
    return printTable('Telemetry: the same app with telemetry off, with the API only, and with an SDK', ['variant', 'req/s (median)', 'spread', 'vs off'], rows, [
      `protected route: API only / off = ${ratio('protected', 'api').toFixed(3)} (target >= 0.97: ${verdict(ratio('protected', 'api') >= 0.97)}), SDK / off = ${ratio('protected', 'sdk').toFixed(3)} (target >= 0.85: ${verdict(ratio('protected', 'sdk') >= 0.85)})`,
      `login route (a route span, its store spans and metrics): API only / off = ${ratio('login', 'api').toFixed(3)}, SDK / off = ${ratio('login', 'sdk').toFixed(3)}`,
    ]);
  } finally {
    await Promise.all([...children.values()].map((c) => c.stop()));
  }
}
