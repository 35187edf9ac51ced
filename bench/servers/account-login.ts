// Benchmark server: a password login that issues a session, at one bcrypt cost: authgate's account
// service through its provider, and better-auth's e-mail sign-in (memory adapter, bcrypt at the
// same cost). Prints READY with the ports.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { betterAuth } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { toNodeHandler } from 'better-auth/node';
import { createAuth, senderFunc } from '../../src';
import { accounts, MemoryAccountStore } from '../../src/accounts';
import { hashPassword, loadBcrypt } from '../../src/plugins/accounts/passwords';
import { benchAccount } from '../lib/account';

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const ROUNDS = Number(process.env.BCRYPT_ROUNDS ?? 10);

async function listen(app: express.Express): Promise<number> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

async function main(): Promise<void> {
  const store = new MemoryAccountStore();
  await store.create(benchAccount('b'.repeat(24), 'load@example.com', await hashPassword('load-password', ROUNDS)));
  const plugin = accounts({ store, rateLimits: false, lockout: false, bcryptRounds: ROUNDS, sender: senderFunc(() => undefined), baseUrl: 'http://127.0.0.1:8080/account' });
  const auth = createAuth({ rateLimits: false, url: 'http://127.0.0.1:8080', secret: SECRET, avatarStore: 'memory://', plugins: [plugin] });
  const ours = express();
  ours.use('/auth', auth.handlers().authRouter);

  const bcrypt = loadBcrypt();
  const ba = betterAuth({
    secret: SECRET,
    baseURL: 'http://127.0.0.1:8080',
    trustedOrigins: ['http://127.0.0.1:8080'],
    database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
    emailAndPassword: { enabled: true, password: { hash: (password) => bcrypt.hash(password, ROUNDS), verify: ({ hash, password }) => bcrypt.compare(password, hash) } },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
  });
  await ba.api.signUpEmail({ body: { email: 'load@example.com', password: 'load-password', name: 'load' } });
  const theirs = express();
  theirs.all(/^\/api\/auth\/.*/, toNodeHandler(ba));

  console.log(`READY ${JSON.stringify({ ports: { authgate: await listen(ours), betterAuth: await listen(theirs) }, rounds: ROUNDS })}`);
}

void main();
