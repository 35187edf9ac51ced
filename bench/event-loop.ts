import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load } from './lib/load';
import { median } from './lib/stats';
import { printTable, verdict } from './lib/table';

interface Sample {
  statusP99: number;
  statusRps: number;
  eldP99: number;
  tokensRps: number;
}

/** /auth/status latency alone and while 16 clients hammer /account/tokens (bcrypt cost 12), interleaved. */
export async function eventLoop(args: BenchArgs): Promise<string> {
  const child = await startChild('hashing');
  try {
    const { port } = child.info as { port: number };
    const base = `http://127.0.0.1:${port}`;
    const eld = async (): Promise<number> => ((await (await fetch(`${base}/__bench/eld?reset=1`)).json()) as { p99: number }).p99;
    const seconds = args.quick ? 1.2 : 6;
    const status = (): ReturnType<typeof load> => load({ url: `${base}/auth/status`, connections: 4, seconds });
    const tokens = {
      url: `${base}/account/tokens`,
      method: 'POST' as const,
      connections: 16,
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"password","email":"load@example.com","password":"load-password"}',
    };
    await status();
    const idle: Sample[] = [];
    const busy: Sample[] = [];
    for (let round = 0; round < (args.quick ? 2 : 5); round++) {
      await eld();
      const alone = await status();
      idle.push({ statusP99: alone.p99, statusRps: alone.rps, eldP99: await eld(), tokensRps: 0 });
      const [loaded, hammer] = await Promise.all([status(), load({ ...tokens, seconds })]);
      if (hammer.non2xx > 0) throw new Error(`tokens: ${hammer.non2xx} non-2xx`);
      busy.push({ statusP99: loaded.p99, statusRps: loaded.rps, eldP99: await eld(), tokensRps: hammer.rps });
    }
    const m = (list: Sample[], key: keyof Sample): number => median(list.map((s) => s[key]));
    const ratio = Math.max(m(busy, 'statusP99'), 1) / Math.max(m(idle, 'statusP99'), 1);
    return printTable(
      '/auth/status while 16 clients hammer /account/tokens (bcrypt cost 12)',
      ['phase', '/auth/status p99 ms', '/auth/status req/s', 'event-loop delay p99 ms', '/account/tokens req/s'],
      [
        ['no login load', m(idle, 'statusP99'), m(idle, 'statusRps'), m(idle, 'eldP99'), '-'],
        ['16 clients on /account/tokens', m(busy, 'statusP99'), m(busy, 'statusRps'), m(busy, 'eldP99'), m(busy, 'tokensRps')],
      ],
      [`status p99 under load / without = ${ratio.toFixed(2)} (target <= 5: ${verdict(ratio <= 5)}); p99 values under 1 ms count as 1 ms`],
    );
  } finally {
    await child.stop();
  }
}
