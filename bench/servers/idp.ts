// Benchmark server: authgate with the identity provider (memory stores) and the direct login, in
// one app. Prints READY with the port, the session of user "bench", and the trusted client.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAuth, MemoryStateStore } from '../../src';
import { identityProvider } from '../../src/idp';
import { loginSession } from '../lib/announce';

const CLIENT = { clientId: 'bench', clientSecret: 'bench-client-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:9/cb' };

async function main(): Promise<void> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const idp = identityProvider({
    key: 'bench-identity-provider-key-0123456789',
    clients: [{ clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret, redirectUris: [CLIENT.redirectUri], trusted: true }],
  });
  // Room for every session, code, token and grant of the run (the default memory store keeps 100,000 entries and drops the oldest).
  const stateStore = new MemoryStateStore(5_000_000);
  const auth = createAuth({ rateLimits: false, url, secret: 'bench-secret-0123456789abcdef0123456789', avatarStore: 'memory://', tokenDuration: 3_600_000, stateStore, plugins: [idp] });
  auth.addDirectProvider('local', () => true);
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use(idp.router);
  await idp.ready();
  server.on('request', app);
  const { cookie, xsrf } = await loginSession(port, 'bench');
  console.log(`READY ${JSON.stringify({ port, cookie, xsrf, ...CLIENT })}`);
}

void main();
