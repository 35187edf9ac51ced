import { hasControlChars } from './text';

/**
 * Decides whether a login may redirect to `from`: a relative path starting with a single `/`, or
 * an absolute http(s) URL (without credentials) whose host is the app's own or listed in
 * `allowedHosts`. Anything else, including `//host`, `/\host`, `javascript:` and control
 * characters, is refused.
 */
export function isAllowedRedirect(from: string, ownUrl: URL, allowedHosts: readonly string[]): boolean {
  if (from === '' || from.length > 2048 || hasControlChars(from) || from.includes('\\')) return false;
  if (from.startsWith('/')) return !from.startsWith('//');
  let target: URL;
  try {
    target = new URL(from);
  } catch {
    return false;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  if (target.username !== '' || target.password !== '') return false;
  const host = target.host.toLowerCase();
  return host === ownUrl.host.toLowerCase() || allowedHosts.includes(host) || allowedHosts.includes(target.hostname.toLowerCase());
}
