// Benchmark server: two account routers on level stores, one holding 100 accounts and one
// holding ACCOUNTS (default 100,000), bcrypt cost 4. Prints READY with the ports.
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createAccountRouter, senderFunc } from '../../src';
import { LevelAccountStore } from '../../src/stores-level';
import { type Account } from '../../src/accounts';
import { hashPassword } from '../../src/plugins/accounts/passwords';
import { benchAccount } from '../lib/account';

async function fill(store: LevelAccountStore, count: number, hash: string): Promise<void> {
  const make = (i: number): Account => benchAccount(i.toString(16).padStart(24, '0'), `user${i}@example.com`, hash);
  for (let i = 0; i < count; i += 256) {
    await Promise.all(Array.from({ length: Math.min(256, count - i) }, (_, k) => store.create(make(i + k))));
  }
}

async function main(): Promise<void> {
  const hash = await hashPassword('scale-password', 4);
  const ports: Record<string, number> = {};
  for (const [name, count] of [
    ['small', 100],
    ['large', Number(process.env.ACCOUNTS ?? 100_000)],
  ] as const) {
    const store = new LevelAccountStore(mkdtempSync(join(tmpdir(), `authgate-bench-acc-${name}-`)));
    await fill(store, count, hash);
    const app = express();
    app.use('/account', createAccountRouter({ rateLimits: false, store, sender: senderFunc(() => undefined), baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4 }));
    ports[name] = await new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  }
  console.log(`READY ${JSON.stringify({ ports })}`);
}

void main();
