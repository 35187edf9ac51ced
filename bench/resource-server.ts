import { createHash, randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { measureRates } from './lib/rates';
import { printTable, verdict } from './lib/table';

interface Info {
  port: number;
  bearer: string;
  bound: string;
  clientKey: JWK;
  clientPublic: JWK;
}

/**
 * An API guarded by protectedResource(): a call with a bearer JWT access token against a call with
 * a DPoP-bound one and a fresh proof (its signature, its checks, its jti remembered). The client
 * signs each proof, as a DPoP client must; both run from this process, the API in its own.
 */
export async function resourceServerBench(args: BenchArgs): Promise<string> {
  const child = await startChild('resource');
  try {
    const info = child.info as unknown as Info;
    const url = `http://127.0.0.1:${info.port}/data`;
    const key = await importJWK(info.clientKey, 'ES256');
    const ath = createHash('sha256').update(info.bound).digest('base64url');
    const call = async (headers: Record<string, string>): Promise<void> => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`the API answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    const variants: Record<string, () => Promise<void>> = {
      'bearer JWT access token': () => call({ authorization: `Bearer ${info.bearer}` }),
      'DPoP-bound token with a fresh proof': async () => {
        const proof = await new SignJWT({ htm: 'GET', htu: url, jti: randomUUID(), ath }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: info.clientPublic }).setIssuedAt().sign(key);
        await call({ authorization: `DPoP ${info.bound}`, dpop: proof });
      },
    };
    const { perSecond, rows } = await measureRates(variants, args);
    const ratio = perSecond('bearer JWT access token') / perSecond('DPoP-bound token with a fresh proof');
    return printTable('Resource server: a bearer call against a DPoP-bound call (16 concurrent clients; the client signs each proof)', ['variant', 'calls per second (median)', 'spread'], rows, [
      `cost of a DPoP-bound call / cost of a bearer call = ${ratio.toFixed(2)} (target <= 3: ${verdict(ratio <= 3)})`,
    ]);
  } finally {
    await child.stop();
  }
}
