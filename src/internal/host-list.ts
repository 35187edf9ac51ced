import { configError } from '../base/errors';

/** One `host:port` of a URI's host list. */
export interface HostPort {
  host: string;
  port: number;
}

/** A URI whose authority names several hosts (`scheme://user:pass@h1:1,h2:2/path?query`), split up. */
export interface HostListUri {
  /** The hosts in the order given, each with its port (the default when left out). */
  hosts: HostPort[];
  /**
   * The URI with only the first host: what a one-host parser reads for the user, password, path
   * and query. Replace its host with {@link withHost}.
   */
  first: URL;
}

/** `[v6]:port`, `host:port`, `host` or `[v6]`. */
const HOST_PORT = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i;

/**
 * Splits the host list of a URI: `postgres://h1:5432,h2:5433/db` or
 * `redis+sentinel://s1:26379,s2:26379/name`. A URI with one host gives a list of one.
 * @param what - how errors name the URI ("postgres store URI").
 * @param defaultPort - the port of a host given without one.
 * @throws AuthError (`config`) for a malformed URI or host.
 */
export function parseHostList(uri: string, what: string, defaultPort: number): HostListUri {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/is.exec(uri);
  if (match === null) throw configError(`${what} ${JSON.stringify(uri.slice(0, 80))} is malformed`);
  const [, scheme, userinfo, authority, rest] = match as unknown as [string, string, string | undefined, string, string];
  const hosts = authority.split(',').map((part) => {
    const found = HOST_PORT.exec(part.trim());
    const port = found?.[2] === undefined ? defaultPort : Number(found[2]);
    if (found === null || port < 1 || port > 65535) throw configError(`${what}: ${JSON.stringify(part.slice(0, 80))} is not a host or host:port`);
    return { host: (found[1] as string).replace(/^\[|\]$/g, ''), port };
  });
  const head = hosts[0] as HostPort;
  let first: URL;
  try {
    first = new URL(`${scheme}${userinfo === undefined ? '' : `${userinfo}@`}${hostText(head)}${rest}`);
  } catch {
    throw configError(`${what} ${JSON.stringify(uri.slice(0, 80))} is malformed`);
  }
  return { hosts, first };
}

/** `host:port`, with an IPv6 address in brackets. */
export function hostText({ host, port }: HostPort): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** A copy of `url` that names `target` as its host. */
export function withHost(url: URL, target: HostPort): URL {
  const copy = new URL(url.toString());
  copy.hostname = target.host.includes(':') ? `[${target.host}]` : target.host;
  copy.port = String(target.port);
  return copy;
}
