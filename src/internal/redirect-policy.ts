import { hasUnusableChars } from './text';

/** Percent-encodes what a `Location` header cannot carry (spaces, non-ASCII), leaving the URL's structure as it is. */
function encodeForHeader(location: string): string {
  return location.replace(/[^\x21-\x7e]+/gu, (run) => encodeURIComponent(run));
}

/**
 * Where a login may redirect to for `from`, ready for the `Location` header; `undefined` when it
 * may not. Allowed: a relative path starting with a single `/`, or an absolute http(s) URL
 * (without credentials) whose host is the app's own or listed in `allowedHosts`. Refused:
 * `//host`, `/\host`, `javascript:`, control characters. Characters a header cannot carry (such
 * as `/∕evil.com` or `/Ā`) are percent-encoded, so the redirect stays on the same path.
 */
export function redirectTarget(from: string, ownUrl: URL, allowedHosts: readonly string[]): string | undefined {
  if (from === '' || from.length > 2048 || hasUnusableChars(from) || from.includes('\\')) return undefined;
  if (from.startsWith('/')) return from.startsWith('//') ? undefined : encodeForHeader(from);
  let target: URL;
  try {
    target = new URL(from);
  } catch {
    return undefined;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
  if (target.username !== '' || target.password !== '') return undefined;
  const host = target.host.toLowerCase();
  const allowed = host === ownUrl.host.toLowerCase() || allowedHosts.includes(host) || allowedHosts.includes(target.hostname.toLowerCase());
  // The parsed form: an ASCII host (punycode) and an encoded path.
  return allowed ? target.href : undefined;
}

/** Where a service may send a browser: its own URL and the extra hosts allowed (`allowedRedirectHosts`). */
export interface RedirectPolicy {
  url: URL;
  allowedRedirectHosts: readonly string[];
}
