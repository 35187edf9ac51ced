import { configError } from '../../core/errors';
import type { DnsOptions } from './dns-proof';

/** Options of the SSO plugin: `sso({ ... })`. */
export interface SsoOptions {
  /** Where domain claims (and later connections) are kept: a database URI (`postgres://`, `mysql://`, `sqlite:`, `mongodb://`, `level:///`, `memory://`). @default the `database` of `createAuth`, else 'memory://' */
  store?: string;
  /** How domain proofs are looked up in DNS. @default the system's resolvers, 5 s */
  dns?: DnsOptions;
}

/** Checks the options at once: a mistake fails at start-up. */
export function checkSsoOptions(options: SsoOptions): SsoOptions {
  if (options === null || typeof options !== 'object') throw configError('sso() takes an options object (or nothing)');
  if (options.store !== undefined && (typeof options.store !== 'string' || options.store === '')) throw configError('sso: store must be a database URI');
  const dns = options.dns;
  if (dns !== undefined) {
    if (dns.servers !== undefined && (!Array.isArray(dns.servers) || dns.servers.some((s) => typeof s !== 'string' || s === '')))
      throw configError('sso: dns.servers must be a list of host or host:port');
    if (dns.timeoutMs !== undefined && (!Number.isInteger(dns.timeoutMs) || dns.timeoutMs < 100 || dns.timeoutMs > 60_000))
      throw configError('sso: dns.timeoutMs must be a whole number of ms from 100 to 60000');
  }
  return options;
}
