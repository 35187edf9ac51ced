import { createHash, randomBytes } from 'node:crypto';
import type { BenchArgs } from './lib/args';
import { startChild } from './lib/child';
import { measureRates } from './lib/rates';
import { printTable, verdict } from './lib/table';

interface Info {
  port: number;
  cookie: string;
  xsrf: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** Cookies of a browser by name, kept across one flow. */
function jar(initial: string): { header(): string; keep(res: Response): void } {
  const cookies = new Map(initial.split('; ').map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)] as [string, string]));
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    keep(res) {
      for (const line of res.headers.getSetCookie()) {
        const pair = line.split(';')[0] ?? '';
        cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
    },
  };
}

/**
 * The identity provider against the plain login, side by side: a direct login (one request), a
 * whole authorization code flow of a signed-in browser (authorize, the login step, resume, the
 * token request: what another app's login costs), and a refresh (rotation included).
 */
export async function idpBench(args: BenchArgs): Promise<string> {
  const child = await startChild('idp');
  try {
    const info = child.info as unknown as Info;
    const base = `http://127.0.0.1:${info.port}`;
    const basic = `Basic ${Buffer.from(`${info.clientId}:${info.clientSecret}`).toString('base64')}`;
    const token = async (form: Record<string, string>): Promise<{ refresh_token: string }> => {
      const res = await fetch(`${base}/oidc/token`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
      if (res.status !== 200) throw new Error(`token answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { refresh_token: string };
    };
    const codeFlow = async (): Promise<{ refresh_token: string }> => {
      const browser = jar(info.cookie);
      const verifier = randomBytes(32).toString('base64url');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const query = new URLSearchParams({
        client_id: info.clientId,
        response_type: 'code',
        scope: 'openid offline_access',
        prompt: 'consent',
        redirect_uri: info.redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      let next = `${base}/oidc/auth?${query.toString()}`;
      for (let hop = 0; hop < 8; hop++) {
        const res = await fetch(next, { headers: { cookie: browser.header() }, redirect: 'manual' });
        browser.keep(res);
        await res.arrayBuffer();
        const location = new URL(res.headers.get('location') ?? '', next);
        if (location.href.startsWith(info.redirectUri)) {
          return token({ grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '', redirect_uri: info.redirectUri, code_verifier: verifier });
        }
        next = location.href;
      }
      throw new Error('the code flow did not end at the redirect URI');
    };
    // Each worker rotates a refresh token of its own (two using one at once would be a reuse).
    const chains = new Map<number, string>();
    const variants: Record<string, (worker: number) => Promise<void>> = {
      'direct login (POST JSON)': async () => {
        const res = await fetch(`${base}/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"bench","passwd":"x"}' });
        if (res.status !== 200) throw new Error(`login answered ${res.status}`);
        await res.arrayBuffer();
      },
      'code flow of a signed-in browser (4 requests and the token)': async () => void (await codeFlow()),
      'refresh (rotated)': async (worker) => {
        const current = chains.get(worker) ?? (await codeFlow()).refresh_token;
        chains.set(worker, (await token({ grant_type: 'refresh_token', refresh_token: current })).refresh_token);
      },
    };
    const { perSecond, rows } = await measureRates(variants, args);
    const flow = perSecond('direct login (POST JSON)') / perSecond('code flow of a signed-in browser (4 requests and the token)');
    const refresh = perSecond('direct login (POST JSON)') / perSecond('refresh (rotated)');
    return printTable('Identity provider: another app signing in, and a refresh, against the plain login (16 concurrent clients, memory stores)', ['variant', 'per second (median)', 'spread'], rows, [
      `cost of another app's login through the provider / cost of a direct login = ${flow.toFixed(2)} (target <= 10: ${verdict(flow <= 10)})`,
      `cost of a refresh / cost of a direct login = ${refresh.toFixed(2)} (target <= 3: ${verdict(refresh <= 3)})`,
    ]);
  } finally {
    await child.stop();
  }
}
