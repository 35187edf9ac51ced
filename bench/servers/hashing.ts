// Benchmark server: the account router (bcrypt at the default cost) and /auth/status in one app,
// with an event-loop delay histogram at /__bench/eld. Prints READY with the port.
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import express from 'express';
import { createAccountRouter, createAuth, senderFunc } from '../../src';
import { MemoryAccountStore } from '../../src/accounts';
import { hashPassword } from '../../src/plugins/accounts/passwords';
import { benchAccount } from '../lib/account';

async function main(): Promise<void> {
  const store = new MemoryAccountStore();
  await store.create(benchAccount('b'.repeat(24), 'load@example.com', await hashPassword('load-password', 12)));
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: 'bench-secret-0123456789abcdef0123456789' });
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use('/account', createAccountRouter({ rateLimits: false, store, sender: senderFunc(() => undefined), baseUrl: 'http://127.0.0.1:8080/account' }));
  const eld = monitorEventLoopDelay({ resolution: 10 });
  eld.enable();
  app.get('/__bench/eld', (req, res) => {
    const p99 = eld.percentile(99) / 1e6;
    if (req.query.reset) eld.reset();
    res.json({ p99 });
  });
  const server = app.listen(0, '127.0.0.1', () => console.log(`READY ${JSON.stringify({ port: (server.address() as AddressInfo).port })}`));
}

void main();
