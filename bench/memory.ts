import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load } from './lib/load';
import { printTable, verdict } from './lib/table';

interface Mem {
  rss: number;
  heapUsed: number;
  verified: number;
  refresh: number;
  state: number;
}

/** RSS after warm-up vs after many protected requests and logins with distinct users. */
export async function memory(args: BenchArgs): Promise<string> {
  const child = await startChild('memory', { NODE_OPTIONS: '--expose-gc' });
  try {
    const { port, cookie, xsrf } = child.info as { port: number; cookie: string; xsrf: string };
    const base = `http://127.0.0.1:${port}`;
    const mem = async (): Promise<Mem> => (await (await fetch(`${base}/__bench/mem`)).json()) as Mem;
    let n = 0;
    const logins = (amount: number): ReturnType<typeof load> =>
      load({ url: `${base}/auth/local/login`, method: 'POST', headers: { 'content-type': 'application/json' }, amount, makeBody: () => `{"user":"user-${++n}","passwd":"x"}` });
    const requests = (amount: number): ReturnType<typeof load> => load({ url: `${base}/private`, headers: { cookie, 'x-xsrf-token': xsrf }, amount, connections: 64 });
    const scale = args.quick ? 0.012 : 1;
    // Warm-up long enough for the heap to reach its working size, and for the state store to
    // reach its bound (each login keeps a session: a record and a list entry).
    await requests(args.quick ? 6_000 : 200_000);
    await logins(args.quick ? 800 : 60_000);
    const warm = await mem();
    const r = await requests(1_000_000 * scale);
    const l = await logins(100_000 * scale);
    if (r.non2xx + l.non2xx > 0) throw new Error(`${r.non2xx + l.non2xx} non-2xx answers`);
    const after = await mem();
    const ratio = after.rss / warm.rss;
    const mb = (b: number): string => (b / 2 ** 20).toFixed(1);
    return printTable(
      `Memory: ${1_000_000 * scale} protected requests and ${100_000 * scale} logins with distinct users`,
      ['point', 'RSS MiB', 'heap used MiB', 'verified-token cache', 'refresh cache', 'state store'],
      [
        ['after warm-up', mb(warm.rss), mb(warm.heapUsed), warm.verified, warm.refresh, warm.state],
        ['after the load', mb(after.rss), mb(after.heapUsed), after.verified, after.refresh, after.state],
      ],
      [
        `RSS after / after warm-up = ${ratio.toFixed(2)} (target <= 1.1: ${verdict(ratio <= 1.1)}${args.quick ? '; quick runs are too short to judge RSS' : ''}); heap used after / after warm-up = ${(after.heapUsed / warm.heapUsed).toFixed(2)}`,
        'bounds: verified-token cache 10,000, refresh cache 10,000, state store 100,000 (entries and session list members together)',
      ],
    );
  } finally {
    await child.stop();
  }
}
