import { availableParallelism } from 'node:os';
import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable } from './lib/table';

/** A password login that issues a session: authgate's account login vs better-auth's e-mail sign-in, same bcrypt cost, interleaved. */
export async function accountLogin(args: BenchArgs): Promise<string> {
  const child = await startChild('account-login');
  try {
    const { ports, rounds } = child.info as { ports: Record<string, number>; rounds: number };
    const headers = { 'content-type': 'application/json', origin: 'http://127.0.0.1:8080' };
    const variants: Record<string, Parameters<typeof load>[0]> = {
      'authgate: POST /auth/accounts/login': {
        url: `http://127.0.0.1:${ports.authgate}/auth/accounts/login`,
        method: 'POST',
        headers,
        body: '{"user":"load@example.com","passwd":"load-password"}',
      },
      'better-auth: POST /api/auth/sign-in/email': {
        url: `http://127.0.0.1:${ports.betterAuth}/api/auth/sign-in/email`,
        method: 'POST',
        headers,
        body: '{"email":"load@example.com","password":"load-password"}',
      },
    };
    const span = { seconds: args.quick ? 3 : 6, connections: 8 };
    for (const v of Object.values(variants)) await load({ ...v, seconds: 0.5, connections: 8 });
    const runs = await interleave(Object.keys(variants), args.quick ? 3 : 5, async (name) => {
      const r = await load({ ...variants[name]!, ...span });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r;
    });
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const [ours, theirs] = Object.keys(variants) as [string, string];
    const rows = Object.keys(variants).map((name) => {
      const list = runs.get(name) as LoadResult[];
      return [name, rps(name), `±${spread(list.map((r) => r.rps)).toFixed(0)}%`, median(list.map((r) => r.p99)), (rps(ours) / rps(name)).toFixed(2)];
    });
    return printTable(`Password login issuing a session, bcrypt cost ${rounds} for both, 8 connections`, ['variant', 'logins/s (median)', 'spread', 'p99 ms', 'authgate / variant'], rows, [
      `authgate / better-auth = ${(rps(ours) / rps(theirs)).toFixed(2)}: the hash is the cost. authgate hashes on at most (cores - 1) threads (BCRYPT_CONCURRENCY), so a login burst leaves a core to every other request (see the hashing bench); better-auth's bcrypt takes every thread of the pool. On ${availableParallelism()} cores that is ${Math.max(1, availableParallelism() - 1)} against ${Math.min(4, availableParallelism())}.`,
    ]);
  } finally {
    await child.stop();
  }
}
