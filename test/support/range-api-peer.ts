import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the range API stand-in saw. */
export interface RangeRequest {
  path: string;
  padding: string | undefined;
}

/**
 * A stand-in of the Have I Been Pwned range API (`GET /range/<5 hex>`) on 127.0.0.1, answering as
 * the documented service does: `SUFFIX:COUNT` lines (35 upper-case hex characters), CRLF between
 * them, and with `Add-Padding: true` 800 to 1,000 more lines of made-up suffixes with a count of 0.
 * It knows `breached` (seen `count` times); `mode` makes it fail as a real outage would.
 */
export interface RangeApiPeer {
  /** The base URL the check appends the prefix to. */
  url: string;
  requests: RangeRequest[];
  /** `'slow'` never answers, `'error'` answers 500, `'garbage'` answers HTML. @default 'ok' */
  mode: 'ok' | 'slow' | 'error' | 'garbage';
  close(): Promise<void>;
}

export async function startRangeApiPeer(breached: Record<string, number>): Promise<RangeApiPeer> {
  const known = new Map<string, Map<string, number>>();
  for (const [password, count] of Object.entries(breached)) {
    const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const lines = known.get(hash.slice(0, 5)) ?? new Map<string, number>();
    lines.set(hash.slice(5), count);
    known.set(hash.slice(0, 5), lines);
  }
  const peer: RangeApiPeer = { url: '', requests: [], mode: 'ok', close: async () => undefined };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const padding = req.headers['add-padding'] as string | undefined;
    peer.requests.push({ path: req.url ?? '', padding });
    if (peer.mode === 'slow') return void hanging.add(res);
    if (peer.mode === 'error') return void res.writeHead(500).end('oops');
    if (peer.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    const match = /^\/range\/([0-9A-Fa-f]{5})$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(400).end('The hash prefix was not in a valid format');
    const lines = [...(known.get(match[1]!.toUpperCase()) ?? new Map<string, number>())].map(([suffix, count]) => `${suffix}:${count}`);
    if (padding === 'true') {
      const extra = 800 + Math.floor(Math.random() * 200);
      for (let i = 0; i < extra; i++) lines.push(`${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:0`);
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.sort().join('\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`;
  peer.close = async () => {
    for (const res of hanging) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return peer;
}
