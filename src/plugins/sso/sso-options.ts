import { configError } from '../../plugin-kit/helpers';
import type { DnsOptions } from './dns-proof';

/** Options of the SSO plugin: `sso({ ... })`. */
export interface SsoOptions {
  /**
   * Seals what connections keep secret at rest (each SAML connection's private key, each OpenID
   * Connect client secret): at least 32 characters, kept like the app's secret. Changing it makes
   * the stored connections unusable.
   */
  key: string;
  /**
   * Origins (`http://127.0.0.1:7000`) of identity providers on private or loopback addresses: an
   * IdP inside your network, a test IdP. Metadata URLs, issuers and IdP endpoints may use them (and
   * http there); every other URL an admin gives must be public https.
   * @default []
   */
  privateOrigins?: readonly string[] | undefined;
  /** The clock skew allowed on an IdP's times (NotBefore, NotOnOrAfter, `iat`), in ms, at most two minutes. @default 60000 */
  clockSkewMs?: number | undefined;
  /** Where domain claims (and later connections) are kept: a database URI (`postgres://`, `mysql://`, `sqlite:`, `mongodb://`, `level:///`, `memory://`). @default the `database` of `createAuth`, else 'memory://' */
  store?: string | undefined;
  /** How domain proofs are looked up in DNS. @default the system's resolvers, 5 s */
  dns?: DnsOptions | undefined;
}

/** {@link SsoOptions} checked, with defaults. */
export interface ResolvedSsoOptions extends SsoOptions {
  privateOrigins: readonly string[];
  clockSkewMs: number;
}

/** Checks the options at once: a mistake fails at start-up. */
export function checkSsoOptions(options: SsoOptions): ResolvedSsoOptions {
  if (options === null || typeof options !== 'object') throw configError('sso() takes options: sso({ key: process.env.SSO_KEY })');
  if (typeof options.key !== 'string' || options.key.length < 32) throw configError("sso: key must be a secret of at least 32 characters (it seals the connections' keys and client secrets)");
  const privateOrigins = options.privateOrigins ?? [];
  if (!Array.isArray(privateOrigins) || privateOrigins.some((o) => typeof o !== 'string' || !/^https?:\/\/[^/]+$/.test(o)))
    throw configError('sso: privateOrigins must be origins such as http://127.0.0.1:7000');
  const clockSkewMs = options.clockSkewMs ?? 60_000;
  if (!Number.isInteger(clockSkewMs) || clockSkewMs < 0 || clockSkewMs > 120_000) throw configError('sso: clockSkewMs must be a whole number of ms from 0 to 120000');
  if (options.store !== undefined && (typeof options.store !== 'string' || options.store === '')) throw configError('sso: store must be a database URI');
  const dns = options.dns;
  if (dns !== undefined) {
    if (dns.servers !== undefined && (!Array.isArray(dns.servers) || dns.servers.some((s) => typeof s !== 'string' || s === '')))
      throw configError('sso: dns.servers must be a list of host or host:port');
    if (dns.timeoutMs !== undefined && (!Number.isInteger(dns.timeoutMs) || dns.timeoutMs < 100 || dns.timeoutMs > 60_000))
      throw configError('sso: dns.timeoutMs must be a whole number of ms from 100 to 60000');
  }
  return { ...options, privateOrigins, clockSkewMs };
}
