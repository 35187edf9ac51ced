// An authgate app with the identity provider, as a process of its own: for clients whose metadata
// jest's module sandbox cannot hand to oidc-provider (objects of another realm, such as a JWKS).
// Argument: JSON { clients }. Prints "READY <url>"; the direct login `local` takes the password pw.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IdpClient } from '../../src/idp';
import { createIdpApp } from './idp-app';
import { freePort } from './ports';

async function main(): Promise<void> {
  const { clients } = JSON.parse(process.argv[2] ?? '{}') as { clients: IdpClient[] };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { app, idp } = createIdpApp(url, { clients });
  await idp.ready();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  console.log(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

void main();
