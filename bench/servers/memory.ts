// Benchmark server for memory: direct login and a protected route, with /__bench/mem reporting
// RSS after a GC and the size of every cache. Run with --expose-gc.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAuth, MemoryRefreshCache, MemoryStateStore, mustGetUser } from '../../src';

async function main(): Promise<void> {
  const refreshCache = new MemoryRefreshCache();
  const stateStore = new MemoryStateStore();
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'noop://', refreshCache, stateStore, tokenDuration: 3_600_000 });
  auth.addDirectProvider('local', () => true);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => {
    res.json(mustGetUser(req));
  });
  app.get('/__bench/mem', (_req, res) => {
    (globalThis as { gc?: () => void }).gc?.();
    res.json({ rss: process.memoryUsage().rss, verified: auth.tokens.verifiedCacheSize, refresh: refreshCache.size, state: stateStore.size });
  });
  const server = app.listen(0, '127.0.0.1', async () => {
    const port = (server.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"mem","passwd":"x"}' });
    const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]);
    const xsrf = cookies.find((c) => c?.startsWith('XSRF-TOKEN='))?.slice(11) ?? '';
    console.log(`READY ${JSON.stringify({ port, cookie: cookies.join('; '), xsrf })}`);
  });
}

void main();
