import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

/** What the token endpoint puts into the id_token for a code. */
export interface CodeGrant {
  sub: string;
  email?: string;
  nonce?: string;
  aud?: string;
  iss?: string;
  /** Sign with a key the JWKS does not publish. */
  forgeSignature?: boolean;
  /** Sign with a new key published only from now on (kid rotation). */
  rotateKey?: boolean;
}

/** Stand-ins for Apple's token endpoint and JWKS, with key pairs made here. */
export interface ApplePeer {
  url: string;
  teamId: string;
  keyId: string;
  clientId: string;
  /** The team's EC P-256 private key as PEM (what the `.p8` file holds). */
  privateKeyPem: string;
  issueCode(grant: CodeGrant): string;
  tokenRequests: Array<Record<string, string>>;
  jwksFetches: number;
  close(): Promise<void>;
}

const ISSUER = 'https://appleid.apple.com';

/** Starts the stand-ins on 127.0.0.1. */
export async function startApplePeer(): Promise<ApplePeer> {
  const team = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  let signing = { kid: 'apple-k1', ...generateKeyPairSync('rsa', { modulusLength: 2048 }) };
  const published: Array<{ kid: string; publicKey: KeyObject }> = [signing];
  const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const codes = new Map<string, CodeGrant>();
  const peer = {
    teamId: 'TEAM123456',
    keyId: 'KEY1234567',
    clientId: 'com.example.web',
    privateKeyPem: team.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    tokenRequests: [] as Array<Record<string, string>>,
    jwksFetches: 0,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/auth/keys') {
        peer.jwksFetches++;
        return res.end(JSON.stringify({ keys: published.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, alg: 'RS256', use: 'sig' })) }));
      }
      if (req.url !== '/auth/token' || req.method !== 'POST') {
        res.statusCode = 404;
        return res.end('{}');
      }
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      peer.tokenRequests.push(form);
      try {
        const secret = jwt.verify(form.client_secret ?? '', team.publicKey, { algorithms: ['ES256'], issuer: peer.teamId, audience: ISSUER, subject: peer.clientId, complete: true });
        if (secret.header.kid !== peer.keyId) throw new Error('kid');
      } catch {
        res.statusCode = 400;
        return res.end(JSON.stringify({ error: 'invalid_client' }));
      }
      const grant = codes.get(form.code ?? '');
      codes.delete(form.code ?? '');
      if (!grant || form.grant_type !== 'authorization_code' || form.client_id !== peer.clientId) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ error: 'invalid_grant' }));
      }
      if (grant.rotateKey) {
        signing = { kid: `apple-k${published.length + 1}`, ...generateKeyPairSync('rsa', { modulusLength: 2048 }) };
        published.push(signing);
      }
      const claims = { iss: grant.iss ?? ISSUER, aud: grant.aud ?? peer.clientId, sub: grant.sub, email: grant.email, nonce: grant.nonce };
      const key = grant.forgeSignature ? forger.privateKey : signing.privateKey;
      const idToken = jwt.sign(claims, key, { algorithm: 'RS256', keyid: signing.kid, expiresIn: 600 });
      return res.end(JSON.stringify({ access_token: 'a', token_type: 'bearer', expires_in: 3600, refresh_token: 'r', id_token: idToken }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let n = 0;
  return {
    ...peer,
    get jwksFetches() {
      return peer.jwksFetches;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    issueCode(grant) {
      const code = `code-${++n}`;
      codes.set(code, grant);
      return code;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
