import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable, verdict } from './lib/table';

/** GET /private behind authgate (cookie + XSRF) vs unprotected vs express-jwt vs passport-jwt (Bearer). */
export async function protectedRoute(args: BenchArgs): Promise<string> {
  const child = await startChild('protected');
  try {
    const { ports, token, xsrf } = child.info as { ports: Record<string, number>; token: string; xsrf: string };
    const variants: Record<string, { port: number; headers: Record<string, string> }> = {
      unprotected: { port: ports.plain!, headers: {} },
      authgate: { port: ports.authgate!, headers: { cookie: `JWT=${token}; XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf } },
      'express-jwt': { port: ports.expressJwt!, headers: { authorization: `Bearer ${token}` } },
      'passport-jwt': { port: ports.passportJwt!, headers: { authorization: `Bearer ${token}` } },
    };
    const seconds = args.quick ? 0.6 : 4;
    for (const v of Object.values(variants)) await load({ url: `http://127.0.0.1:${v.port}/private`, headers: v.headers, seconds: 0.5 });
    const runs = await interleave(Object.keys(variants), args.quick ? 5 : 7, async (name) => {
      const v = variants[name]!;
      const r = await load({ url: `http://127.0.0.1:${v.port}/private`, headers: v.headers, seconds });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r;
    });
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const ours = rps('authgate');
    const rows = Object.keys(variants).map((name) => {
      const list = runs.get(name) as LoadResult[];
      return [name, rps(name), `±${spread(list.map((r) => r.rps)).toFixed(0)}%`, median(list.map((r) => r.p99)), name === 'authgate' ? '1.00' : (ours / rps(name)).toFixed(2)];
    });
    const vsPlain = ours / rps('unprotected');
    const vsEj = ours / rps('express-jwt');
    const vsPj = ours / rps('passport-jwt');
    return printTable('Protected route: GET /private, 32 connections', ['variant', 'req/s (median)', 'spread', 'p99 ms', 'authgate / variant'], rows, [
      `authgate / unprotected = ${vsPlain.toFixed(2)} (target >= 0.95: ${verdict(vsPlain >= 0.95)})`,
      `authgate / express-jwt = ${vsEj.toFixed(2)}, authgate / passport-jwt = ${vsPj.toFixed(2)} (target >= 2: ${verdict(vsEj >= 2 && vsPj >= 2)})`,
    ]);
  } finally {
    await child.stop();
  }
}
