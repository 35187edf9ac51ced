import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable, verdict } from './lib/table';
import { startRedis } from '../test/support/servers';

type Session = { cookie: string; xsrf: string };

/**
 * Sessions on a real Redis: the protected route in both revocation modes against a bare route (the
 * same request bytes for all three), and a login that records a session against one that does
 * not (the same checks and rate limits), on Redis and in memory. Interleaved runs.
 */
export async function sessionsBench(args: BenchArgs): Promise<string> {
  const redis = await startRedis();
  const child = await startChild('sessions', { REDIS_URL: redis.url });
  try {
    const info = child.info as { ports: Record<string, number>; refresh: Session; everyRequest: Session };
    const { ports } = info;
    // Both authgate servers get both cookies; each accepts its own (the other's session is unknown there and accepted, as go-pkgz tokens are).
    const sameRequest = (s: Session): Record<string, string> => ({ cookie: s.cookie, 'x-xsrf-token': s.xsrf });
    let n = 0;
    const loginBody = (): string => `{"user":"user-${++n}","passwd":"x"}`;
    const loginAt = (port: number, provider: string): Parameters<typeof load>[0] => ({
      url: `http://127.0.0.1:${port}/auth/${provider}/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      makeBody: loginBody,
    });
    const variants: Record<string, Parameters<typeof load>[0]> = {
      unprotected: { url: `http://127.0.0.1:${ports.plain}/private`, headers: sameRequest(info.refresh) },
      "protected, revocationCheck 'refresh', Redis": { url: `http://127.0.0.1:${ports.refresh}/private`, headers: sameRequest(info.refresh) },
      "protected, revocationCheck 'every-request', Redis": { url: `http://127.0.0.1:${ports.everyRequest}/private`, headers: sameRequest(info.everyRequest) },
      'login with a session record, Redis': loginAt(ports.refresh!, 'local'),
      'login without a session record, Redis': loginAt(ports.refresh!, 'nosession'),
      'login with a session record, memory': loginAt(ports.memory!, 'local'),
      'login without a session record, memory': loginAt(ports.memory!, 'nosession'),
    };
    const span = { seconds: args.quick ? 0.4 : 3 };
    for (const v of Object.values(variants)) await load({ ...v, seconds: 0.3 });
    const runs = await interleave(Object.keys(variants), args.quick ? 3 : 7, async (name) => {
      const r = await load({ ...variants[name]!, ...span });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r;
    });
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const rows = Object.keys(variants).map((name) => {
      const list = runs.get(name) as LoadResult[];
      return [name, rps(name), `±${spread(list.map((r) => r.rps)).toFixed(0)}%`, median(list.map((r) => r.p99))];
    });
    const refresh = rps("protected, revocationCheck 'refresh', Redis") / rps('unprotected');
    const every = rps("protected, revocationCheck 'every-request', Redis") / rps('unprotected');
    const loginRedis = rps('login with a session record, Redis') / rps('login without a session record, Redis');
    const loginMemory = rps('login with a session record, memory') / rps('login without a session record, memory');
    return printTable(
      'Sessions: protected route by revocation mode, and logins with and without a session record (32 connections, Redis started for the run)',
      ['variant', 'req/s (median)', 'spread', 'p99 ms'],
      rows,
      [
        `'refresh' / unprotected = ${refresh.toFixed(3)} (target >= 0.95: ${verdict(refresh >= 0.95)})`,
        `'every-request' on Redis / unprotected = ${every.toFixed(3)} (target >= 0.9: ${verdict(every >= 0.9)})`,
        `login with / without a session record: Redis ${loginRedis.toFixed(2)}, memory ${loginMemory.toFixed(2)}`,
      ],
    );
  } finally {
    await child.stop();
    await redis.destroy();
  }
}
