import type { IncomingMessage } from 'node:http';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin (`scheme://host[:port]`) of a URL, lower-cased; `undefined` when it is not a URL. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? undefined : parsed.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * `true` for a state-changing request (not GET, HEAD or OPTIONS) that a browser sent from another
 * site: `Sec-Fetch-Site: cross-site`, or, where that header is missing, an `Origin` that is
 * neither the app's nor trusted. Requests without either header (API clients) pass; they are
 * covered by the XSRF header check.
 */
export function isCrossSiteWrite(req: IncomingMessage, ownOrigin: string, trusted: ReadonlySet<string>): boolean {
  if (SAFE.has((req.method ?? 'GET').toUpperCase())) return false;
  const origin = req.headers.origin;
  const fromTrusted = typeof origin === 'string' && (origin.toLowerCase() === ownOrigin || trusted.has(origin.toLowerCase()));
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site') return !fromTrusted;
  if (site === 'same-origin' || site === 'same-site' || site === 'none') return false;
  if (typeof origin !== 'string') return false;
  return !fromTrusted;
}
