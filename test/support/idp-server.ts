// An authgate app with the identity provider, as a process of its own: for clients whose metadata
// jest's module sandbox cannot hand to oidc-provider (objects of another realm, such as a JWKS).
// Argument: JSON { clients }. Prints "READY <url>"; the direct login `local` takes the password pw.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAuth } from '../../src';
import { identityProvider, type IdpClient } from '../../src/idp';
import { freePort } from './ports';

async function main(): Promise<void> {
  const { clients } = JSON.parse(process.argv[2] ?? '{}') as { clients: IdpClient[] };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const idp = identityProvider({ key: 'idp-child-key-0123456789abcdef0123456789', clients });
  const auth = createAuth({ url, secret: 'idp-child-secret-0123456789abcdef0123', avatarStore: 'memory://', rateLimits: false, plugins: [idp] });
  auth.addDirectProvider('local', (_user, passwd) => passwd === 'pw');
  const app = express();
  app.use('/auth', auth.handlers().authRouter);
  app.use(idp.router);
  await idp.ready();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  console.log(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

void main();
