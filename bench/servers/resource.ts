// Benchmark server: an API guarded by protectedResource(), with its issuer's discovery and key set
// served by the same process (what the API fetches once). Prints READY with the port, a bearer
// access token, a DPoP-bound one and the private key the bound one is bound to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { MemoryStateStore } from '../../src';
import { protectedResource } from '../../src/idp';

async function main(): Promise<void> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const issuer = `${base}/issuer`;
  const signing = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(signing.publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const client = await generateKeyPair('ES256', { extractable: true });
  const jkt = await calculateJwkThumbprint(await exportJWK(client.publicKey));
  const token = (bound: boolean): Promise<string> =>
    new SignJWT({ scope: 'read', client_id: 'bench', ...(bound ? { cnf: { jkt } } : {}) })
      .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject('bench-user')
      .setAudience(base)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(signing.privateKey);
  // Room for every proof of the run: each is remembered for its lifetime.
  const guard = protectedResource({ issuer, resource: base, replayStore: new MemoryStateStore(5_000_000) });
  const app = express();
  app.get('/issuer/.well-known/openid-configuration', (_req, res) => res.json({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` }));
  app.get('/issuer/jwks', (_req, res) => res.json({ keys: [publicJwk] }));
  app.get('/data', guard.require('read'), (_req, res) => res.json({ ok: true }));
  server.on('request', app);
  console.log(
    `READY ${JSON.stringify({ port, bearer: await token(false), bound: await token(true), clientKey: await exportJWK(client.privateKey), clientPublic: await exportJWK(client.publicKey) })}`,
  );
}

void main();
