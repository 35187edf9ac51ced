import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { DevServer, noopLogger } from '../../src';
import { PostgresAccountStore } from '../../src/stores-postgres';
import { spawnTracked, type TrackedChild } from '../support/children';
import { eventually } from '../support/eventually';
import { describePostgres, describeRedis, freePort, startPostgres, startRedis, type TestServer } from '../support/servers';

const bothServers = describePostgres === describe && describeRedis === describe ? describe : describe.skip;

interface Instance {
  port: number;
  proc: TrackedChild['child'];
  stop: TrackedChild['stop'];
  output: string[];
}

/**
 * Starts `examples/server` as its own process, as `npm run example` does, with the given
 * environment. A free port can be taken by another test file between its choice and the start:
 * then another one is chosen.
 */
async function startInstance(env: Record<string, string>): Promise<Instance> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freePort(), env);
    } catch (err) {
      if (attempt >= 3 || !/port \d+ is in use/.test(String(err))) throw err;
    }
  }
}

async function startOn(port: number, env: Record<string, string>): Promise<Instance> {
  const output: string[] = [];
  const { child: proc, stop } = spawnTracked(process.execPath, ['--import', 'tsx', join(__dirname, '../../examples/server/index.ts')], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    // An instance that does not start is killed, not left behind.
    const timer = setTimeout(() => void stop().then(() => reject(new Error(`instance did not start: ${output.join('')}`))), 60_000);
    const take = (d: Buffer): void => {
      output.push(d.toString());
      if (output.join('').includes('example listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout?.on('data', take);
    proc.stderr?.on('data', take);
    proc.once('exit', (code) => reject(new Error(`instance exited with ${code}: ${output.join('')}`)));
  });
  return { port, proc, stop, output };
}

/** A round-robin proxy over the instances on `port` (their AUTH_URL); an instance that refuses the connection is skipped. */
function startProxy(instances: Instance[], port: number): Promise<{ url: string; hits: number[]; close(): void }> {
  let next = 0;
  const hits = instances.map(() => 0);
  const server = http.createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const attempt = (tries: number): void => {
        const i = next++ % instances.length;
        const upstream = http.request({ host: '127.0.0.1', port: instances[i]!.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
          hits[i]!++;
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        upstream.on('error', () => (tries > 1 ? attempt(tries - 1) : res.writeHead(502).end()));
        upstream.end(Buffer.concat(body));
      };
      attempt(instances.length);
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${port}`, hits, close: () => server.close() })));
}

/** A small cookie-keeping client, as a browser would be. */
function browser(base: string): { get(path: string, headers?: Record<string, string>): Promise<Response>; post(path: string, body: unknown): Promise<Response>; xsrf(): string } {
  const jar = new Map<string, string>();
  const keep = (res: Response): Response => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  const cookie = (): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    get: async (path, headers = {}) =>
      keep(await fetch(path.startsWith('http') ? path : `${base}${path}`, { headers: { cookie: cookie(), 'x-xsrf-token': jar.get('XSRF-TOKEN') ?? '', ...headers }, redirect: 'manual' })),
    post: async (path, body) =>
      keep(await fetch(`${base}${path}`, { method: 'POST', headers: { cookie: cookie(), 'content-type': 'application/json' }, body: JSON.stringify(body), redirect: 'manual' })),
    xsrf: () => jar.get('XSRF-TOKEN') ?? '',
  };
}

bothServers('one deployment: three example processes on one PostgreSQL and one Redis behind a round-robin proxy', () => {
  let pg: TestServer;
  let redis: TestServer;
  let dev: DevServer;
  let instances: Instance[] = [];
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let databaseUrl: string;

  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
    dev = new DevServer({ host: '127.0.0.1', port: 0, logger: noopLogger });
    await dev.start();
    const proxyPort = await freePort();
    databaseUrl = `${pg.url}?schema=deploy_${randomBytes(4).toString('hex')}`;
    // One customer IdP cannot serve three instances' ports: the SSO demo stays out here.
    const env = {
      AUTH_URL: `http://127.0.0.1:${proxyPort}`,
      AUTH_SECRET: 'd'.repeat(32),
      DATABASE_URL: databaseUrl,
      REDIS_URL: `${redis.url}?prefix=deploy:`,
      DEV_AUTH_URL: dev.url,
      CUSTOMER_IDP_PORT: '0',
    };
    // The first instance migrates the schema; the others start together.
    instances = [await startInstance(env)];
    // Each that starts is kept (and stopped after) even when its sibling fails.
    const rest = await Promise.allSettled([startInstance(env), startInstance(env)]);
    for (const r of rest) if (r.status === 'fulfilled') instances.push(r.value);
    for (const r of rest) if (r.status === 'rejected') throw r.reason;
    proxy = await startProxy(instances, proxyPort);
  }, 120_000);

  afterAll(async () => {
    proxy?.close();
    await Promise.all(instances.map((i) => i.stop()));
    await dev?.stop();
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  });

  it('a direct login made on one instance works on the others', async () => {
    const b = browser(proxy.url);
    expect((await b.post('/auth/local/login', { user: 'demo', passwd: 'demo-password' })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await b.get('/private')).status).toBe(200);
    expect(proxy.hits.every((h) => h > 0)).toBe(true);
  });

  it('an e-mail link mailed by one instance is accepted once on another and refused on a third', async () => {
    const b = browser(proxy.url);
    expect((await b.get('/auth/email/login?user=multi&address=multi@example.com')).status).toBe(200);
    // The instance that mailed it logs the link: wait until one has.
    const link = await eventually(async () => /(http:\/\/\S+\/auth\/email\/login\?token=\S+)/.exec(instances.map((i) => i.output.join('')).join('\n'))![1]!, 10_000, 50);
    const first = await browser(proxy.url).get(link);
    const second = await browser(proxy.url).get(link);
    expect([first.status, second.status]).toEqual([200, 403]);
  });

  it('an OAuth2 login started on one instance (dev provider) completes on another', async () => {
    const b = browser(proxy.url);
    const start = await b.get('/auth/dev/login');
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    const page = await (await fetch(authorize)).text();
    const form = new URLSearchParams({ username: 'traveller' });
    for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      form.set(
        m[1]!,
        m[2]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))),
      );
    const granted = await fetch(new URL('/login/oauth/authorize', authorize), { method: 'POST', body: form, redirect: 'manual' });
    const callback = await b.get(granted.headers.get('location')!);
    expect(callback.status).toBe(200);
    expect(((await callback.json()) as { name: string }).name).toBe('traveller');
    expect((await b.get('/private')).status).toBe(200);
  });

  it('sign-up on one instance, activation on the next, token on the third; an avatar stored by one is served by the others with the same ETag', async () => {
    const b = browser(proxy.url);
    expect((await b.post('/account/signup', { Email: 'lifecycle@example.com', Pwd: 'lifecycle-pw', PwdRepeat: 'lifecycle-pw' })).status).toBe(202);
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      link = /(http:\/\/\S+\/account\/active\/\S+)/.exec(instances.map((x) => x.output.join('')).join('\n'))?.[1];
      if (!link) await new Promise((r) => setTimeout(r, 100));
    }
    expect((await b.get(new URL(link!).pathname + new URL(link!).search)).status).toBe(200);
    expect((await b.post('/account/tokens', { grant_type: 'password', email: 'lifecycle@example.com', password: 'lifecycle-pw' })).status).toBe(200);

    const login = await b.post('/auth/local/login', { user: 'demo', passwd: 'demo-password' });
    const avatar = new URL(((await login.json()) as { picture: string }).picture).pathname;
    const etags = await Promise.all([0, 1, 2].map(async () => (await fetch(`${proxy.url}${avatar}`)).headers.get('etag')));
    expect(etags[0]).toBeTruthy();
    expect(new Set(etags).size).toBe(1);
  });

  it('a rate limit counts requests spread over all three instances', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await browser(proxy.url).post('/auth/local/login', { user: 'limited', passwd: `wrong-${i}` })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses[10]).toBe(429);
  });

  it('20 racing sign-ups of one e-mail spread over the instances leave exactly one account', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => browser(proxy.url).post('/account/signup', { Email: 'race@example.com', Pwd: `password-${i}`, PwdRepeat: `password-${i}` })),
    );
    expect(results.filter((r) => r.status === 202).length + results.filter((r) => r.status === 429).length).toBe(20);
    const store = new PostgresAccountStore(databaseUrl);
    try {
      const { accounts } = await store.list(0, 1000);
      expect(accounts.filter((a) => a.Email === 'race@example.com')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('one instance killed mid-run: the others go on and nothing is lost', async () => {
    const b = browser(proxy.url);
    expect((await b.post('/auth/local/login', { user: 'admin', passwd: 'admin-password' })).status).toBe(200);
    await instances[1]!.stop();
    for (let i = 0; i < 6; i++) expect((await b.get('/admin')).status).toBe(200);
  });
});
