import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import { createAuth, getUser, mustGetUser, type Auth, type AuthOptions } from '../../src';

/** A request or answer as recorded: exact headers, verbatim body. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
}

/** What go-pkgz answered over loopback HTTP. */
export interface RecordedAnswer {
  status: number | null;
  headers?: Record<string, string | string[]>;
  set_cookie?: string[];
  body?: string;
  body_json?: unknown;
  client_error?: string;
}

/** A token made by go-pkgz's `token.Service.Set`. */
export interface MintedVector {
  case: string;
  probe: string;
  args: string[];
  minted_at: number;
  jwt: string;
  jti: string;
  set_cookie: string[];
  claims: Record<string, unknown>;
  go_parse_at_mint: GoVerdict;
}

/** go-pkgz's in-process verdicts: `null` errors mean accepted. */
export interface GoVerdict {
  parse_error: string | null;
  cookie_error: string | null;
  header_error: string | null;
  claims: Record<string, unknown>;
}

/** A token crafted by the recorder and judged by go-pkgz, in process and over HTTP. */
export interface VerdictVector {
  case: string;
  variant: string;
  probe: string;
  xsrf_kind: 'right' | 'wrong' | 'empty';
  token: string;
  xsrf: string;
  crafted: { header: Record<string, unknown>; payload: unknown; note?: string };
  clock_offset_s: number;
  go: GoVerdict;
  go_http: { private_cookie: RecordedAnswer; private_x_jwt: RecordedAnswer; admin_cookie: RecordedAnswer };
}

/** A full transcript of one request to go-pkgz's routes. */
export interface HttpVector {
  case: string;
  server: 'default' | 'aud_a_b';
  asked_at: number;
  request: RecordedRequest;
  response: RecordedAnswer & { status: number; headers: Record<string, string | string[]> };
  set_jwt_claims?: Record<string, unknown>;
  minted?: { jwt: string; jti: string };
  observed?: Record<string, unknown>;
  client_error?: string;
}

/** The recorded corpus (see fixtures/go-pkgz-auth/README.md). */
export interface GoVectors {
  source: string;
  secret: string;
  recorded_at: number;
  token_duration_s: number;
  cookie_duration_s: number;
  minted: MintedVector[];
  verdicts: VerdictVector[];
  http: HttpVector[];
}

/** go-pkgz/auth v2.2.0's recorded behaviour, kept in this repository as a test fixture. */
export const vectors: GoVectors = JSON.parse(readFileSync(join(__dirname, 'fixtures/go-pkgz-auth/vectors.json'), 'utf8')) as GoVectors;

/**
 * The third of the recorded verdicts kept apart from `vectors.json` for a final check, when it is
 * beside the checkout (`../shared/peers/go-pkgz-auth/hidden-verdicts.json`) or named by
 * `GO_PKGZ_HIDDEN_VERDICTS`; none otherwise (the suite needs nothing outside the checkout).
 */
export function hiddenVerdicts(): VerdictVector[] {
  const file = process.env.GO_PKGZ_HIDDEN_VERDICTS ?? join(__dirname, '../../../shared/peers/go-pkgz-auth/hidden-verdicts.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { verdicts: VerdictVector[] }).verdicts : [];
}

/** An authgate server set up as the recording peer was: routes `/auth/*`, `/private`, `/admin`, `/open`. */
export interface GoLikeServer {
  url: string;
  auth: Auth;
  close(): Promise<void>;
}

/**
 * Starts authgate configured like the peer: secret, 15-minute tokens, 31-day cookies, issuer,
 * SameSite=Lax, URL `http://127.0.0.1`, a direct provider `local` with demo/demo-password and
 * admin/admin-password, and `attrs.admin` for the user named admin. `/private`, `/admin` and
 * `/open` answer `{"user": ...}` as the peer's did.
 */
export function startGoLikeServer(options: Partial<AuthOptions> = {}): Promise<GoLikeServer> {
  const auth = createAuth({
    url: 'http://127.0.0.1',
    // go-pkgz/auth's recorded secret is shorter than createAuth({ secret }) takes: a reader joins it, as a deployment would.
    secretReader: () => vectors.secret,
    issuer: 'go-pkgz/auth',
    tokenDuration: vectors.token_duration_s * 1000,
    cookieDuration: vectors.cookie_duration_s * 1000,
    rateLimits: false,
    avatarStore: 'memory://',
    claimsUpdater: (claims) => (claims.user?.name === 'admin' ? { ...claims, user: { ...claims.user, attrs: { ...claims.user.attrs, admin: true } } } : claims),
    ...options,
  });
  auth.addDirectProvider('local', (u, p) => (u === 'demo' && p === 'demo-password') || (u === 'admin' && p === 'admin-password'));
  const app = express();
  const m = auth.middleware();
  app.use('/auth', auth.handlers().authRouter);
  app.get('/private', m.auth, (req, res) => void res.json({ user: mustGetUser(req) }));
  app.get('/admin', m.admin, (req, res) => void res.json({ user: mustGetUser(req) }));
  app.get('/open', m.trace, (req, res) => void res.json({ user: getUser(req).user ?? null }));
  return new Promise((resolve) => {
    const server: Server = app.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        auth,
        close: async () => {
          await new Promise((done) => server.close(done));
          await auth.close();
        },
      });
    });
  });
}

/** One parsed `Set-Cookie` line. */
export interface ParsedCookie {
  value: string;
  /** Attribute names in lower case; flags map to `true`. */
  attrs: Record<string, string | true>;
}

/** Parses `Set-Cookie` lines by cookie name (the last line of a name wins). */
export function parseSetCookies(lines: readonly string[]): Record<string, ParsedCookie> {
  const out: Record<string, ParsedCookie> = {};
  for (const line of lines) {
    const [pair = '', ...rest] = line.split(';');
    const eq = pair.indexOf('=');
    const attrs: Record<string, string | true> = {};
    for (const part of rest) {
      const i = part.indexOf('=');
      if (i === -1) attrs[part.trim().toLowerCase()] = true;
      else attrs[part.slice(0, i).trim().toLowerCase()] = part.slice(i + 1).trim();
    }
    out[pair.slice(0, eq).trim()] = { value: pair.slice(eq + 1).trim(), attrs };
  }
  return out;
}

/** What authgate answered to a replayed request. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  setCookie: string[];
  body: string;
}

/**
 * Sends a request with exactly the given headers (spaces kept, nothing added but `Host` when it
 * names the recording server), the way the recorder sent it to go-pkgz.
 */
export function send(baseUrl: string, req: RecordedRequest): Promise<Answer> {
  const target = new URL(baseUrl);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = name.toLowerCase() === 'host' ? target.host : value;
  return new Promise((resolve, reject) => {
    const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.path, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = res.headers['set-cookie'];
        resolve({ status: res.statusCode ?? 0, headers: res.headers, setCookie: raw ?? [], body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(req.body ?? undefined);
  });
}

/** A GET of `path` with a token as the `JWT` cookie plus the XSRF header, or as `X-JWT`. */
export function tokenRequest(path: string, token: string, how: { xsrf: string } | 'x-jwt'): RecordedRequest {
  const headers: Record<string, string> = { Host: '', Connection: 'close' };
  if (how === 'x-jwt') headers['X-JWT'] = token;
  else Object.assign(headers, { Cookie: `JWT=${token}; XSRF-TOKEN=${how.xsrf}`, 'X-XSRF-TOKEN': how.xsrf });
  return { method: 'GET', path, headers, body: null };
}

/** The decoded payload of a JWT (not verified). */
export function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
