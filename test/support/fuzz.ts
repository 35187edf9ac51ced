import { createHmac } from 'node:crypto';
import http from 'node:http';

const TEXT_POOLS: ReadonlyArray<readonly string[]> = [
  [...'abcdefghijklmnopqrstuvwxyz0123456789'],
  [...'!@#$%^&*()[]{};:\'",.<>/?\\|`~-_=+ '],
  [...'éüßØ漢字🙂\u202e\u200b'],
  [...'\u0000\u0001\r\n\t\u007f'],
];

/** A small seeded PRNG (mulberry32), so a failing fuzz run can be replayed from its seed. */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** `n` random-looking bytes: a random 1 KiB chunk repeated (large bodies need no more entropy). */
  bytes(n: number): Buffer {
    const chunk = Buffer.alloc(Math.min(n, 1024));
    for (let i = 0; i < chunk.length; i++) chunk[i] = this.int(256);
    return n <= chunk.length ? chunk : Buffer.alloc(n, chunk);
  }

  /** Text of printable ASCII, unicode, control characters and quotes. */
  text(max: number): string {
    let s = '';
    const len = this.int(max + 1);
    for (let i = 0; i < len; i++) {
      const pool = this.pick(TEXT_POOLS);
      s += pool[this.int(pool.length)];
    }
    return s;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A random JSON value of the kinds a claim could hold. */
function anyJson(rng: Rng, depth = 2): unknown {
  const kinds: Array<() => unknown> = [
    () => null,
    () => rng.chance(0.5),
    () => rng.pick([0, -1, 1.5, 1e308, Math.floor(Date.now() / 1000) + 600]),
    () => rng.text(12),
    () => (depth > 0 ? Array.from({ length: rng.int(3) }, () => anyJson(rng, depth - 1)) : []),
    () => (depth > 0 ? Object.fromEntries(Array.from({ length: rng.int(3) }, () => [rng.pick(['id', 'name', 'admin', 'role', rng.text(4)]), anyJson(rng, depth - 1)])) : {}),
  ];
  return rng.pick(kinds)();
}

/** Claims of any shape, often close to real ones (so they pass the signature and reach the shape checks). */
function randomClaims(rng: Rng): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const maybe = (real: unknown): unknown => (rng.chance(0.6) ? real : rng.chance(0.5) ? undefined : anyJson(rng));
  return {
    aud: maybe('authgate'),
    exp: maybe(rng.pick([now + 600, now - 30])),
    jti: maybe(rng.text(10) || 'j'),
    iss: maybe('authgate'),
    user: maybe({ id: maybe(`local_${'d'.repeat(40)}`), name: maybe(rng.text(8)), picture: maybe(''), attrs: maybe({ admin: maybe(true) }), role: maybe('admin') }),
    handshake: rng.chance(0.2) ? maybe({ state: maybe(rng.text(6)), from: maybe('/x'), id: maybe(rng.text(6)) }) : undefined,
    auth_provider: maybe({ name: maybe(rng.pick(['local', 'dev', 'gone'])) }),
    sess_only: rng.chance(0.2) ? maybe(true) : undefined,
    'no-ava': rng.chance(0.2) ? maybe(true) : undefined,
  };
}

/**
 * Strings shaped like JWTs (random segments, real-looking headers, none/RS256, huge), and with a
 * `secret`, also correctly signed tokens with arbitrary claims.
 */
export function jwtLike(rng: Rng, secret?: string): string {
  if (secret !== undefined && rng.chance(0.4)) {
    const body = `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(randomClaims(rng))).toString('base64url')}`;
    return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
  }
  const seg = (n: number): string => {
    let out = '';
    for (let i = 0; i < Math.min(n, 64); i++) out += B64[rng.int(64)];
    return n <= 64 ? out : out.repeat(Math.ceil(n / 64)).slice(0, n);
  };
  const header = Buffer.from(JSON.stringify({ alg: rng.pick(['HS256', 'none', 'RS256', 'hs256', '']), typ: 'JWT', kid: rng.chance(0.3) ? '../../x' : undefined })).toString('base64url');
  const payload = Buffer.from(
    JSON.stringify({
      aud: rng.pick(['authgate', ['a', 'b'], 1, null]),
      exp: rng.pick([0, 9e15, '1', -1]),
      user: rng.chance(0.5) ? { name: rng.text(8), id: rng.text(8) } : rng.text(5),
      handshake: rng.chance(0.2) ? {} : undefined,
    }),
  ).toString('base64url');
  // Only the picked shape is built: the long one is costly.
  const shapes = [
    () => `${header}.${payload}.${seg(43)}`,
    () => `${seg(20)}.${seg(40)}.${seg(43)}`,
    () => seg(rng.int(50)),
    () => `${header}.${payload}.`,
    () => 'a.b.c',
    () => `${header}.${seg(9000)}.${seg(43)}`,
  ];
  return rng.pick(shapes)();
}

/** Nested JSON of the given depth. */
export function deepJson(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** A raw request of the fuzzers. */
export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/**
 * Sends one request. A server may answer an oversized body early (413) and close the socket while
 * the body is still being written: that reset is reported as status `reset` with the status seen.
 */
export function send(port: number, agent: http.Agent, req: Sent): Promise<{ status: number; ms: number; reset: boolean }> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    let status = 0;
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers: req.headers, agent }, (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => resolve({ status, ms: Date.now() - start, reset: false }));
    });
    r.setTimeout(5000, () => r.destroy(new Error('no answer within 5 s')));
    // Headers and body go out as separate writes; without this, Nagle and delayed ACKs add ~40 ms.
    r.on('socket', (socket) => socket.setNoDelay(true));
    r.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') resolve({ status, ms: Date.now() - start, reset: true });
      else reject(err);
    });
    r.end(req.body);
  });
}
