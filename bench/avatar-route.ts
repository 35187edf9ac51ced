import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable, verdict } from './lib/table';

/** GET /avatar/<id>.image from the file store vs express.static serving the same file, 200 and 304. */
export async function avatarRoute(args: BenchArgs): Promise<string> {
  const child = await startChild('avatar');
  try {
    const { ports, paths } = child.info as { ports: Record<string, number>; paths: Record<string, string> };
    const etags: Record<string, string> = {};
    for (const name of ['authgate', 'static']) {
      const res = await fetch(`http://127.0.0.1:${ports[name]}${paths[name]}`);
      etags[name] = res.headers.get('etag') ?? '';
      await res.arrayBuffer();
    }
    const variants: Record<string, { url: string; headers: Record<string, string> }> = {};
    for (const name of ['authgate', 'static']) {
      const url = `http://127.0.0.1:${ports[name]}${paths[name]}`;
      variants[`${name} 200`] = { url, headers: {} };
      variants[`${name} 304`] = { url, headers: { 'if-none-match': etags[name]! } };
    }
    const span = { seconds: args.quick ? 0.4 : 4 };
    for (const v of Object.values(variants)) await load({ ...v, seconds: 0.2 });
    const runs = await interleave(Object.keys(variants), args.quick ? 5 : 7, (name) => load({ ...variants[name]!, ...span }));
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const rows = Object.keys(variants).map((name) => {
      const list = runs.get(name) as LoadResult[];
      return [name, rps(name), `±${spread(list.map((r) => r.rps)).toFixed(0)}%`, median(list.map((r) => r.p99))];
    });
    const r200 = rps('authgate 200') / rps('static 200');
    const r304 = rps('authgate 304') / rps('static 304');
    return printTable('Avatar route: file store vs express.static, same file, 32 connections', ['variant', 'req/s (median)', 'spread', 'p99 ms'], rows, [
      `authgate / express.static: 200 = ${r200.toFixed(2)}, 304 = ${r304.toFixed(2)} (target >= 1.0: ${verdict(r200 >= 1 && r304 >= 1)})`,
    ]);
  } finally {
    await child.stop();
  }
}
