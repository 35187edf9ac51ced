import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { load, type LoadResult } from './lib/load';
import { interleave, median, spread } from './lib/stats';
import { printTable, verdict } from './lib/table';
import { createAuth, senderFunc } from '../src';
import { organizations } from '../src/organizations';
import { startRedis } from '../test/support/servers';

/**
 * The cost per call of `m.auth` and of `m.org()`, measured in this process without HTTP, on one
 * token that names a member's organization; and of `m.auth` on a miss: 30,000 distinct tokens in
 * turn, three times the verified-token cache, so every call checks a signature.
 */
async function middlewareCosts(): Promise<{ auth: number; org: number; miss: number }> {
  const orgs = organizations({ sender: senderFunc(() => undefined) });
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'noop://', tokenDuration: 3_600_000, plugins: [orgs] });
  auth.addDirectProvider('local', () => true);
  const user = { name: 'bench', id: 'local_0123456789abcdef0123456789abcdef01234567', picture: '' };
  const org = await orgs.service.create(user, { name: 'Bench' });
  const { token, claims } = await auth.tokens.create({ aud: 'authgate', user, auth_provider: { name: 'local' }, org: org.id });
  const xsrf = claims.jti as string;
  const m = auth.middleware();
  const requestOf = (token: string, xsrf: string): never => ({ method: 'GET', url: '/private', headers: { cookie: `JWT=${token}; XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf } }) as never;
  const one = requestOf(token, xsrf);
  const distinct: never[] = [];
  for (let i = 0; i < 30_000; i++) {
    const made = await auth.tokens.create({ aud: 'authgate', user: { ...user, id: `local_${i.toString(16).padStart(40, '0')}` }, auth_provider: { name: 'local' } });
    distinct.push(requestOf(made.token, made.claims.jti as string));
  }
  const res = { setHeader: () => undefined, getHeader: () => undefined } as never;
  const cost = async (handler: (req: never, res: never, next: (err?: unknown) => void) => void, requests: never[] = [one]): Promise<number> => {
    // The middleware calls next() at once for a known token, later otherwise: both are awaited.
    const call = (req: never): Promise<void> | undefined => {
      let outcome = 'pending' as 'pending' | 'ok' | { err: unknown };
      let wake: ((err?: unknown) => void) | undefined;
      handler(req, res, (err?: unknown) => {
        if (wake) wake(err);
        else outcome = err ? { err } : 'ok';
      });
      if (outcome === 'ok') return undefined;
      if (outcome !== 'pending') return Promise.reject((outcome as { err: unknown }).err);
      return new Promise((resolve, reject) => {
        wake = (err) => (err ? reject(err) : resolve());
      });
    };
    const run = async (n: number): Promise<number> => {
      const begin = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const pending = call(requests[i % requests.length] as never);
        if (pending) await pending;
      }
      return Number(process.hrtime.bigint() - begin) / n / 1000;
    };
    await run(20_000);
    return run(50_000);
  };
  const result = { auth: await cost(m.auth), org: await cost(m.org()), miss: await cost(m.auth, distinct) };
  await auth.close();
  return result;
}

/** Signed session tokens of `n` distinct users, made with the bench server's secret. */
async function distinctTokens(n: number): Promise<string[]> {
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'noop://', tokenDuration: 3_600_000 });
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `local_${i.toString(16).padStart(40, '0')}`;
    tokens.push((await auth.tokens.create({ aud: 'authgate', user: { name: `user ${i}`, id, picture: '' }, auth_provider: { name: 'local' } })).token);
  }
  await auth.close();
  return tokens;
}

/** GET /private behind authgate (cookie + XSRF) vs unprotected vs express-jwt vs passport-jwt (Bearer). */
export async function protectedRoute(args: BenchArgs): Promise<string> {
  const redis = await startRedis();
  const child = await startChild('protected', { REDIS_URL: redis.url });
  try {
    const { ports, token, xsrf, cookies, apiKey } = child.info as { ports: Record<string, number>; token: string; xsrf: string; cookies: string[]; apiKey: string };
    // Every variant gets the same request bytes: the cookies (each finds its own), the XSRF header and the Bearer token.
    const sameRequest = { cookie: [`JWT=${token}; XSRF-TOKEN=${xsrf}`, ...cookies].join('; '), 'x-xsrf-token': xsrf, authorization: `Bearer ${token}` };
    // 100,000 users, each with its own token (ten times the verified-token cache): nearly every
    // request is a cache miss. Bare and express-jwt get the same rotating headers.
    const many = await distinctTokens(args.quick ? 20_000 : 100_000);
    let next = 0;
    const rotating = (): Record<string, string> => {
      const token = many[next++ % many.length] as string;
      return { 'x-jwt': token, authorization: `Bearer ${token}` };
    };
    const variants: Record<string, { port: number; headers: Record<string, string>; makeHeaders?: () => Record<string, string> }> = {
      unprotected: { port: ports.plain!, headers: sameRequest },
      authgate: { port: ports.authgate!, headers: sameRequest },
      'authgate + m.org() (organizations plugin)': { port: ports.authgateOrg!, headers: sameRequest },
      'authgate, API key (Authorization: Bearer agk_…)': { port: ports.authgate!, headers: { authorization: `Bearer ${apiKey}` } },
      'express-jwt': { port: ports.expressJwt!, headers: sameRequest },
      'passport-jwt': { port: ports.passportJwt!, headers: sameRequest },
      'better-auth, cookie cache': { port: ports.betterAuthCached!, headers: sameRequest },
      'better-auth, session read per request': { port: ports.betterAuth!, headers: sameRequest },
      'Passport + express-session (memory)': { port: ports.passportSession!, headers: sameRequest },
      'Passport + express-session (connect-redis)': { port: ports.passportRedis!, headers: sameRequest },
      [`unprotected, ${many.length / 1000} k tokens`]: { port: ports.plain!, headers: {}, makeHeaders: rotating },
      [`authgate, ${many.length / 1000} k distinct users`]: { port: ports.authgate!, headers: {}, makeHeaders: rotating },
      [`express-jwt, ${many.length / 1000} k distinct users`]: { port: ports.expressJwt!, headers: {}, makeHeaders: rotating },
      [`signature check + JSON.parse only, ${many.length / 1000} k distinct users`]: { port: ports.floor!, headers: {}, makeHeaders: rotating },
    };
    const span = { seconds: args.quick ? 0.4 : 4 };
    for (const v of Object.values(variants)) await load({ url: `http://127.0.0.1:${v.port}/private`, headers: v.headers, makeHeaders: v.makeHeaders, seconds: 0.2 });
    // The server's CPU time per request: unlike req/s, it does not move with what the load
    // generator, on the same cores, is given.
    const serverCpu = async (): Promise<number> => {
      const used = (await (await fetch(`http://127.0.0.1:${ports.cpu!}/cpu`)).json()) as { user: number; system: number };
      return used.user + used.system;
    };
    const cpuPerRequest = new Map<string, number[]>();
    const runs = await interleave(Object.keys(variants), args.quick ? 5 : 7, async (name) => {
      const v = variants[name]!;
      const before = await serverCpu();
      const r = await load({ url: `http://127.0.0.1:${v.port}/private`, headers: v.headers, makeHeaders: v.makeHeaders, ...span });
      const requests = r.rps * span.seconds;
      cpuPerRequest.set(name, [...(cpuPerRequest.get(name) ?? []), ((await serverCpu()) - before) / requests]);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r;
    });
    const cpu = (name: string): number => median(cpuPerRequest.get(name) as number[]);
    const rps = (name: string): number => median((runs.get(name) as LoadResult[]).map((r) => r.rps));
    const ours = rps('authgate');
    const rows = Object.keys(variants).map((name) => {
      const list = runs.get(name) as LoadResult[];
      return [name, rps(name), `±${spread(list.map((r) => r.rps)).toFixed(0)}%`, median(list.map((r) => r.p99)), cpu(name).toFixed(1), name === 'authgate' ? '1.00' : (ours / rps(name)).toFixed(2)];
    });
    const vsPlain = ours / rps('unprotected');
    const vsEj = ours / rps('express-jwt');
    const orgVsPlain = rps('authgate + m.org() (organizations plugin)') / rps('unprotected');
    const keyVsPlain = rps('authgate, API key (Authorization: Bearer agk_…)') / rps('unprotected');
    const vsPj = ours / rps('passport-jwt');
    const perCall = await middlewareCosts();
    const k = many.length / 1000;
    const vsPlainMany = rps(`authgate, ${k} k distinct users`) / rps(`unprotected, ${k} k tokens`);
    const vsEjMany = rps(`authgate, ${k} k distinct users`) / rps(`express-jwt, ${k} k distinct users`);
    const floorMany = rps(`signature check + JSON.parse only, ${k} k distinct users`) / rps(`unprotected, ${k} k tokens`);
    const ofFloor = vsPlainMany / floorMany;
    const cpuOfFloor = cpu(`signature check + JSON.parse only, ${k} k distinct users`) / cpu(`authgate, ${k} k distinct users`);
    return printTable(
      'Protected route: GET /private, 32 connections, same request for every variant',
      ['variant', 'req/s (median)', 'spread', 'p99 ms', 'server CPU us/req (median)', 'authgate / variant'],
      rows,
      [
        `authgate / unprotected = ${vsPlain.toFixed(3)} (target >= 0.95: ${verdict(vsPlain >= 0.95)})`,
        `authgate + m.org() / unprotected = ${orgVsPlain.toFixed(3)} (target >= 0.9: ${verdict(orgVsPlain >= 0.9)})`,
        `authgate with an API key / unprotected = ${keyVsPlain.toFixed(3)} (target >= 0.9: ${verdict(keyVsPlain >= 0.9)})`,
        `authgate / express-jwt = ${vsEj.toFixed(2)}, authgate / passport-jwt = ${vsPj.toFixed(2)} (target >= 2: ${verdict(vsEj >= 2 && vsPj >= 2)})`,
        `in-process cost per request: m.auth ${perCall.auth.toFixed(2)} us (cookie, verified-token cache hit, XSRF, user attached), m.org() ${perCall.org.toFixed(2)} us (the same, and the membership from the per-process cache), m.auth on a cache miss ${perCall.miss.toFixed(2)} us (a signature checked)`,
        `${k} k distinct users (X-JWT, nearly every token a cache miss): authgate / unprotected = ${vsPlainMany.toFixed(3)} (target >= 0.9: ${verdict(vsPlainMany >= 0.9)}), authgate / express-jwt = ${vsEjMany.toFixed(2)}`,
        `lower bound on this machine: a middleware that only checks the HS256 signature and parses the claims / unprotected = ${floorMany.toFixed(3)} (authgate reaches ${ofFloor.toFixed(2)} of it, target >= 0.9: ${verdict(ofFloor >= 0.9)}; in server CPU per request, ${cpuOfFloor.toFixed(2)})`,
      ],
    );
  } finally {
    await child.stop();
    await redis.destroy();
  }
}
