import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isPrivateAddress } from './address-guard';
import { inSpan, telemetryOn } from '../base/telemetry';

/** Limits of one guarded outgoing GET. */
export interface SafeFetchLimits {
  /** Whole request time limit, redirects included. */
  timeoutMs: number;
  /** Largest body accepted. */
  maxBytes: number;
  /** Let the request reach private and loopback addresses. */
  allowPrivateNetworks: boolean;
  /** Origins (`http://127.0.0.1:8084`) that may be on private or loopback addresses, exactly these. @default none */
  allowedPrivateOrigins?: readonly string[];
  /** Redirects followed at most. */
  maxRedirects?: number;
  /** Extra request headers (e.g. `Authorization`); not sent again after a redirect to another host. */
  headers?: Record<string, string>;
  /** The Accept header. @default 'image/*' */
  accept?: string;
  /** A body to POST (with its content type); absent: a GET. */
  post?: { body: Buffer; contentType: string } | undefined;
}

/**
 * Why a guarded fetch failed; the message never carries the URL's query (it may hold secrets).
 * Not an `AuthError`: it quotes the socket's own error for the log, and each caller (the
 * avatar proxy, webhooks, metadata, CAPTCHA) answers with a refusal of its own words.
 */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  /** The code a caller answers with when it passes the failure on. */
  readonly code = 'bad_gateway' as const;
  /** The HTTP status, when the server answered with one that is not a success. */
  status?: number | undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    // node:dns loads with the first lookup: at require('authgate') it would cost about a millisecond.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { lookup } = require('node:dns') as typeof import('node:dns');
    lookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const refused = !allowPrivate && addresses.some((a) => isPrivateAddress(a.address));
      if (refused || addresses.length === 0) {
        return callback(Object.assign(new Error(`refusing to connect to a private address of ${hostname}`), { code: 'EACCES' }), '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

function describe(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * GETs a URL with SSRF and size guards: http(s) only; every resolved address (and every redirect
 * target) checked against private ranges at connect time, so DNS rebinding cannot slip past; a
 * whole-request deadline; the body cut off past `maxBytes`.
 */
export function safeFetch(rawUrl: string, limits: SafeFetchLimits): Promise<Buffer> {
  if (!telemetryOn()) return fetchFollowingRedirects(rawUrl, limits);
  // The host only: a path or query may name a user or carry a code.
  const host = URL.canParse(rawUrl) ? new URL(rawUrl).host : 'invalid';
  return inSpan('authgate.fetch', { 'server.address': host, 'http.request.method': limits.post === undefined ? 'GET' : 'POST' }, () => fetchFollowingRedirects(rawUrl, limits));
}

async function fetchFollowingRedirects(rawUrl: string, limits: SafeFetchLimits): Promise<Buffer> {
  const deadline = Date.now() + limits.timeoutMs;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchError('not a valid URL');
  }
  for (let hop = 0; hop <= (limits.maxRedirects ?? 3); hop++) {
    const answer = await fetchOnce(url, limits, deadline);
    if (answer.redirect === undefined) return answer.body as Buffer;
    const next = new URL(answer.redirect, url);
    if (next.host !== url.host) limits = { ...limits, headers: undefined };
    url = next;
  }
  throw new FetchError('too many redirects');
}

function fetchOnce(url: URL, limits: SafeFetchLimits, deadline: number): Promise<{ body?: Buffer; redirect?: string }> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new FetchError(`scheme ${url.protocol} is not allowed`));
    if (url.username || url.password) return reject(new FetchError('URLs with credentials are not fetched'));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const allowPrivate = limits.allowPrivateNetworks || (limits.allowedPrivateOrigins?.includes(url.origin) ?? false);
    if (isIP(host) && !allowPrivate && isPrivateAddress(host)) {
      return reject(new FetchError(`refusing to fetch from a private address (${describe(url)})`));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new FetchError('timed out'));
    const client = url.protocol === 'https:' ? https : http;
    const post = limits.post;
    const req = client.request(url, {
      method: post ? 'POST' : 'GET',
      lookup: guardedLookup(allowPrivate) as never,
      headers: {
        ...limits.headers,
        accept: limits.accept ?? 'image/*',
        'user-agent': 'authgate',
        ...(post ? { 'content-type': post.contentType, 'content-length': String(post.body.length) } : {}),
      },
      timeout: remaining,
    });
    req.end(post?.body);
    const timer = setTimeout(() => req.destroy(new FetchError('timed out')), remaining);
    const fail = (err: Error): void => {
      clearTimeout(timer);
      reject(err instanceof FetchError ? err : new FetchError(`fetch of ${describe(url)} failed: ${err.message}`));
    };
    req.on('error', fail);
    req.on('timeout', () => req.destroy(new FetchError('timed out')));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        clearTimeout(timer);
        res.resume();
        return resolve({ redirect: res.headers.location });
      }
      if (post ? status < 200 || status >= 300 : status !== 200) {
        res.resume();
        return fail(Object.assign(new FetchError(`fetch of ${describe(url)} answered ${status}`), { status }));
      }
      const declared = Number(res.headers['content-length'] ?? '0');
      if (declared > limits.maxBytes) {
        req.destroy();
        return fail(new FetchError('body is larger than the limit'));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          req.destroy(new FetchError('body is larger than the limit'));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ body: Buffer.concat(chunks) });
      });
    });
  });
}
