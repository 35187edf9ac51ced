import { loadOptional } from './optional';

/**
 * URL patterns matched on parsed URLs, never on text: a pattern's scheme, host, port, path and query
 * are compared one by one with the candidate's, so `*` cannot swallow an `@`, a `\` or a
 * percent-encoded separator that a URL parser or a browser reads as another host.
 *
 * A pattern is a URL in which `*` may stand for: part of one host label (`https://app*.example.com`,
 * `https://*.example.com`: letters, digits and hyphens only, never a dot), the whole port
 * (`http://127.0.0.1:*`), or part of one path segment (`/cb/*`: anything but `/`).
 */
export interface UrlPattern {
  /** The pattern as given. */
  readonly source: string;
  /** Whether `candidate` is a URL this pattern allows. */
  matches(candidate: string): boolean;
}

/** What is used of `tldts`: the registrable domain of a name, or `null` for a public suffix. */
interface Tldts {
  getDomain(host: string, options: { allowPrivateDomains: boolean }): string | null;
}

const PATTERN = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/?#@\\]*))?(\/(?!\/)[^?#\\]*)?(\?[^#\\]*)?$/i;
const LABEL = /^[a-z0-9*-]+$/;
/** Percent-encodings of what separates the parts of a URL (`/`, `\`, `.`, `@`, `?`, `#`, `:`) and NUL. */
const ENCODED_SEPARATOR = /%(2f|5c|2e|40|3f|23|3a|00)/i;

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** The regular expression source of `part`, where `*` stands for `any`. */
function wildcardSource(part: string, any: string): string {
  return part
    .split('*')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(any);
}

/** Why `source` is not a usable pattern, or `undefined` when it is. */
export function patternProblem(source: string): string | undefined {
  const parts = PATTERN.exec(source);
  if (!parts) return 'is not a URL pattern (a scheme, then an optional //host[:port], a path and a query; no user, fragment or backslash)';
  const [, , authority, path = '', query = ''] = parts as unknown as [string, string, string | undefined, string | undefined, string | undefined];
  if (query.includes('*')) return 'has a * in its query';
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return 'has a dot segment in its path';
  if (authority === undefined) return undefined;
  const [, host = '', port] = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority) as unknown as [string, string, string | undefined];
  if (host === '') return 'has no host';
  if (port !== undefined && port !== '*' && !/^\d{1,5}$/.test(port)) return 'has a port that is neither a number nor *';
  if (host.startsWith('[')) return host.includes('*') ? 'has a * in an IPv6 address' : undefined;
  const labels = host.toLowerCase().split('.');
  if (labels.some((l) => !LABEL.test(l))) return 'has a host that is not a DNS name or an address';
  if (!host.includes('*')) return undefined;
  if (/^\d+$/.test(labels[labels.length - 1] as string)) return 'has a * in an address (a * may stand only in a DNS name)';
  // What follows the last label with a * must hold a registrable domain of its own: `*.co.uk` or
  // `*.vercel.app` would be anyone's (the Public Suffix List, private suffixes included).
  const fixed = labels.slice(labels.findLastIndex((l) => l.includes('*')) + 1).join('.');
  const tldts = loadOptional<Tldts>('tldts', 'a * in the host of a URL pattern');
  if (fixed === '' || tldts.getDomain(fixed, { allowPrivateDomains: true }) === null) return 'leaves the host open (a * may stand only below a registrable domain: https://*.agents.example.com)';
  return undefined;
}

/** Parses a pattern (check it with {@link patternProblem} first: this throws on one that is not usable). */
export function urlPattern(source: string): UrlPattern {
  const problem = patternProblem(source);
  if (problem !== undefined) throw new Error(`${source} ${problem}`);
  const [, scheme, authority, path = '', query = ''] = PATTERN.exec(source) as unknown as [string, string, string | undefined, string | undefined, string | undefined];
  const [, host = '', port] = authority === undefined ? [] : (/^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority) as unknown as [string, string, string | undefined]);
  // A * stands for at least one character where it is the whole label (no empty label).
  const labels = host.toLowerCase().split('.');
  const hostTest = new RegExp(`^${labels.map((label) => (label === '*' ? '[a-z0-9-]+' : wildcardSource(label, '[a-z0-9-]*'))).join('\\.')}$`);
  const pathTest = new RegExp(`^${wildcardSource(path, '[^/]*')}$`);
  const protocol = `${scheme.toLowerCase()}:`;
  // The URL parser drops a scheme's default port: the pattern's is compared as the parser writes it.
  const wantedPort = port === DEFAULT_PORTS[protocol] ? '' : (port ?? '');
  return {
    source,
    matches(candidate) {
      if (typeof candidate !== 'string' || candidate.length > 2000 || ENCODED_SEPARATOR.test(candidate) || [...candidate].some((c) => c === '\\' || c <= ' ')) return false;
      let url: URL;
      try {
        url = new URL(candidate);
      } catch {
        return false;
      }
      // The candidate must be written as every parser reads it: no user, no fragment, one spelling.
      if (url.href !== candidate || url.username !== '' || url.password !== '' || url.hash !== '' || candidate.includes('#')) return false;
      if (url.protocol !== protocol) return false;
      if (authority === undefined ? url.host !== '' : !hostTest.test(url.hostname)) return false;
      if (port !== '*' && url.port !== wantedPort) return false;
      return pathTest.test(url.pathname) && url.search === query;
    },
  };
}
