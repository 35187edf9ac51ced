import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in answers for one token it issued. */
export interface IssuedToken {
  hostname?: string;
  action?: string;
  score?: number;
}

/** One siteverify request the stand-in saw (its form fields). */
export type SiteverifyRequest = Record<string, string>;

/**
 * A stand-in of the three siteverify endpoints on 127.0.0.1, built from their documented request
 * and answer shapes: Cloudflare Turnstile (`/turnstile/v0/siteverify`), hCaptcha (`/siteverify`)
 * and reCAPTCHA v3 (`/recaptcha/api/siteverify`). Each takes a form POST of `secret`, `response`
 * and `remoteip` (hCaptcha also `sitekey`) and answers JSON with `success`, `challenge_ts`,
 * `hostname`, `error-codes`, and for reCAPTCHA v3 `score` and `action` (Turnstile: `action` too).
 * A token is good once (`timeout-or-duplicate` after), as the services document.
 */
export interface CaptchaPeer {
  origin: string;
  /** Tokens the test hands to a "browser", with what the service will say about them. */
  issue(token: string, about?: IssuedToken): string;
  requests: Array<{ path: string; form: SiteverifyRequest }>;
  /** `'error'` answers 500, `'slow'` never answers. @default 'ok' */
  mode: 'ok' | 'error' | 'slow';
  close(): Promise<void>;
}

export async function startCaptchaPeer(secret: string): Promise<CaptchaPeer> {
  const issued = new Map<string, IssuedToken & { used?: boolean }>();
  const hanging = new Set<http.ServerResponse>();
  const peer: CaptchaPeer = {
    origin: '',
    requests: [],
    mode: 'ok',
    issue: (token, about = {}) => {
      issued.set(token, { hostname: '127.0.0.1', ...about });
      return token;
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const path = req.url ?? '';
      peer.requests.push({ path, form });
      if (peer.mode === 'slow') return void hanging.add(res);
      if (peer.mode === 'error') return void res.writeHead(500).end('upstream error');
      const reply = (body: Record<string, unknown>): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const scored = path === '/recaptcha/api/siteverify';
      if (req.method !== 'POST' || !['/turnstile/v0/siteverify', '/siteverify', '/recaptcha/api/siteverify'].includes(path)) return void res.writeHead(404).end();
      if (form.secret !== secret) return reply({ success: false, 'error-codes': ['invalid-input-secret'] });
      const token = issued.get(form.response ?? '');
      if (token === undefined) return reply({ success: false, 'error-codes': ['invalid-input-response'] });
      if (token.used) return reply({ success: false, 'error-codes': ['timeout-or-duplicate'] });
      token.used = true;
      reply({
        success: true,
        challenge_ts: new Date().toISOString(),
        hostname: token.hostname,
        'error-codes': [],
        ...(scored ? { score: token.score ?? 0.9, action: token.action ?? '' } : token.action !== undefined ? { action: token.action } : {}),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peer.close = async () => {
    for (const res of hanging) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}
