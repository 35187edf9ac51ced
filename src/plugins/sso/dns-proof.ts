import { Resolver } from 'node:dns/promises';
import { AuthError } from '../../plugin-kit/helpers';

/** The DNS name under a domain whose TXT record proves an organization holds it. */
export const proofName = (domain: string): string => `_authgate-challenge.${domain}`;

/** The TXT value that proves the claim of `token`. */
export const proofValue = (token: string): string => `authgate-domain-verification=${token}`;

/** How domains are looked up: the resolvers to ask (the system's when none) and how long to wait. */
export interface DnsOptions {
  /** Resolvers as `host` or `host:port`. @default the system's */
  servers?: readonly string[] | undefined;
  /** How long one lookup may take, in ms. @default 5000 */
  timeoutMs?: number | undefined;
}

/** Answers that mean "no such record": the proof is missing, not the lookup broken. */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NOTFOUND']);

/**
 * Whether the TXT records at the proof name of `domain` hold `value`. A missing record is `false`;
 * a lookup that fails (timeout, refused, a server failure) is a 502 AuthError: nothing was decided.
 */
export async function hasProof(domain: string, value: string, options: DnsOptions): Promise<boolean> {
  const timeout = options.timeoutMs ?? 5000;
  const resolver = new Resolver({ timeout, tries: 2 });
  if (options.servers !== undefined && options.servers.length > 0) resolver.setServers([...options.servers]);
  try {
    const records = await resolver.resolveTxt(proofName(domain));
    return records.some((chunks) => chunks.join('') === value);
  } catch (err) {
    if (NO_RECORD.has((err as { code?: string }).code ?? '')) return false;
    throw new AuthError('bad_gateway', 'the DNS lookup failed, try again', { cause: err });
  } finally {
    resolver.cancel();
  }
}

/**
 * A domain as organizations claim it: lower case, its ASCII form, at least two labels, no IP
 * address, no wildcard, at most 253 characters. A 400 AuthError otherwise.
 */
export function domainOf(value: unknown): string {
  const refuse = (): never => {
    throw new AuthError('bad_request', 'domain must be a domain name such as example.com');
  };
  if (typeof value !== 'string' || value.length === 0 || value.length > 253 || !/^[\p{L}\p{N}.-]+$/u.test(value)) return refuse();
  let host: string;
  try {
    host = new URL(`http://${value}/`).hostname;
  } catch {
    return refuse();
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  const labels = host.split('.');
  if (labels.length < 2 || labels.some((l) => l.length === 0 || l.length > 63) || /^[0-9.]+$/.test(host) || host.startsWith('[')) return refuse();
  return host;
}

/** The domain of an e-mail address (as {@link domainOf} keeps it); `undefined` when it has none usable. */
export function domainOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  try {
    return domainOf(address.slice(at + 1));
  } catch {
    return undefined;
  }
}
