// Benchmark server for memory: direct login and a protected route, with /__bench/mem reporting
// RSS after a GC and the size of every cache. Run with --expose-gc.
import express from 'express';
import { announceWithSession } from '../lib/announce';
import { createAuth, MemoryRefreshCache, MemoryStateStore, mustGetUser } from '../../src';

async function main(): Promise<void> {
  const refreshCache = new MemoryRefreshCache();
  const stateStore = new MemoryStateStore();
  const auth = createAuth({
    rateLimits: false,
    url: 'http://127.0.0.1:8080',
    secret: 'bench-secret-0123456789abcdef0123456789',
    avatarStore: 'noop://',
    refreshCache,
    stateStore,
    tokenDuration: 3_600_000,
  });
  auth.addDirectProvider('local', () => true);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', auth.middleware().auth, (req, res) => {
    res.json(mustGetUser(req));
  });
  app.get('/__bench/mem', (_req, res) => {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    res.json({ rss, heapUsed, verified: auth.tokens.verifiedCacheSize, refresh: refreshCache.size, state: stateStore.size });
  });
  announceWithSession(app.listen(0, '127.0.0.1'), 'mem');
}

void main();
