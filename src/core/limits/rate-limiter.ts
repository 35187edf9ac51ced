import { createHash } from 'node:crypto';
import { AuthError, configError, RateLimitError } from '../../base/errors';

export { RateLimitError };
import { addressGroup } from '../../internal/client-ip';
import type { StateStore } from '../state/state-store';

/** One limit: at most `limit` hits per `windowMs`, per identity. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** How many leading bits of an IPv6 address one client is counted by, unless set. */
export const DEFAULT_IPV6_RATE_LIMIT_PREFIX = 64;

/** Checks the `ipv6RateLimitPrefix` option: a whole number of bits from 1 to 128. */
export function resolveIpv6Prefix(value: number | undefined): number {
  if (value === undefined) return DEFAULT_IPV6_RATE_LIMIT_PREFIX;
  if (!Number.isInteger(value) || value < 1 || value > 128) throw configError('ipv6RateLimitPrefix must be a whole number of bits from 1 to 128 (64 counts a /64 network as one client)');
  return value;
}

/**
 * Sliding-window rate limits (two fixed windows, the older one weighted by how much of it still
 * overlaps the sliding window), with counters in the state store so instances sharing a mongo
 * store share the counts. Identities are hashed, so counter keys hold no e-mails or IPs.
 */
export class RateLimiter<Name extends string> {
  /**
   * @param store - where the counters live.
   * @param rules - the limits by name; a missing or `false` entry turns that limit off.
   * @param ipv6Prefix - rules named `...PerIp` count an IPv6 client by its network of this many bits.
   */
  constructor(
    private readonly store: StateStore,
    private readonly rules: Partial<Record<Name, RateLimitRule | false>>,
    private readonly ipv6Prefix = DEFAULT_IPV6_RATE_LIMIT_PREFIX,
  ) {}

  /**
   * Counts a hit of `identity` against rule `name`; throws {@link RateLimitError} past the limit.
   * A per-identity rule (a user, an e-mail) is hit only once the credential was found wrong, so
   * that strangers' failures never refuse the owner's right password or valid code.
   */
  async hit(name: Name, identity: string): Promise<void> {
    await this.count(name, identity, true);
  }

  /**
   * Throws {@link RateLimitError} when `identity` has already used up rule `name`, without counting
   * a hit: for limits that count only failures (checked before the attempt, hit after a failure).
   */
  async check(name: Name, identity: string): Promise<void> {
    await this.count(name, identity, false);
  }

  private async count(name: Name, identity: string, add: boolean): Promise<void> {
    const rule = this.rules[name];
    if (!rule) return;
    const now = Date.now();
    const window = Math.floor(now / rule.windowMs);
    const counted = name.endsWith('PerIp') ? addressGroup(identity, this.ipv6Prefix) : identity;
    const id = createHash('sha256').update(counted).digest('base64url').slice(0, 32);
    const key = (w: number): string => `rl:${name}:${id}:${w}`;
    const [current, previous] = await Promise.all([
      add ? this.store.increment(key(window), rule.windowMs * 2) : this.store.get<number>(key(window)).then((n) => n ?? 0),
      this.store.get<number>(key(window - 1)),
    ]);
    const overlap = 1 - (now - window * rule.windowMs) / rule.windowMs;
    const used = current + (previous ?? 0) * overlap;
    if (add ? used > rule.limit : used >= rule.limit) {
      throw new RateLimitError(Math.max(1, Math.ceil(((window + 1) * rule.windowMs - now) / 1000)));
    }
  }
}

/** The limits of the core's login routes (plugins declare their own: `sessionsPerUser`, `twoFactorPerUser`, ...). */
export type AuthRateLimit = 'loginPerIp' | 'loginPerUser' | 'basicPerIp' | 'basicPerUser' | 'verifyPerIp' | 'verifyPerAddress' | 'telegramPerIp';

/** Defaults of the core's login limits. */
export const AUTH_RATE_LIMITS: Record<AuthRateLimit, RateLimitRule> = {
  loginPerIp: { limit: 60, windowMs: 60_000 },
  loginPerUser: { limit: 10, windowMs: 60_000 },
  basicPerIp: { limit: 60, windowMs: 60_000 },
  basicPerUser: { limit: 10, windowMs: 60_000 },
  verifyPerIp: { limit: 20, windowMs: 10 * 60_000 },
  verifyPerAddress: { limit: 5, windowMs: 60 * 60_000 },
  telegramPerIp: { limit: 30, windowMs: 60_000 },
};

/** The limits of the account routes. */
export type AccountRateLimit =
  | 'signupPerIp'
  | 'signupPerEmail'
  | 'resendPerIp'
  | 'resendPerEmail'
  | 'tokensPerIp'
  | 'tokensPerEmail'
  | 'activePerIp'
  | 'activePerId'
  | 'forgotPerIp'
  | 'forgotPerEmail'
  | 'resetPerIp'
  | 'resetPerEmail'
  | 'emailChangePerId';

/** Defaults of the account routes' limits. */
export const ACCOUNT_RATE_LIMITS: Record<AccountRateLimit, RateLimitRule> = {
  signupPerIp: { limit: 20, windowMs: 10 * 60_000 },
  signupPerEmail: { limit: 5, windowMs: 10 * 60_000 },
  resendPerIp: { limit: 20, windowMs: 10 * 60_000 },
  resendPerEmail: { limit: 3, windowMs: 10 * 60_000 },
  tokensPerIp: { limit: 60, windowMs: 60_000 },
  tokensPerEmail: { limit: 10, windowMs: 60_000 },
  activePerIp: { limit: 30, windowMs: 60_000 },
  activePerId: { limit: 10, windowMs: 60_000 },
  forgotPerIp: { limit: 20, windowMs: 10 * 60_000 },
  forgotPerEmail: { limit: 3, windowMs: 60 * 60_000 },
  resetPerIp: { limit: 30, windowMs: 10 * 60_000 },
  resetPerEmail: { limit: 10, windowMs: 10 * 60_000 },
  emailChangePerId: { limit: 10, windowMs: 10 * 60_000 },
};

/** Reads `false` (all off) or per-rule overrides on top of defaults. */
export function resolveRules<Name extends string>(
  defaults: Record<Name, RateLimitRule>,
  given: false | Partial<Record<Name, RateLimitRule | false>> | undefined,
): Partial<Record<Name, RateLimitRule | false>> {
  if (given === false) return {};
  const rules: Partial<Record<Name, RateLimitRule | false>> = { ...defaults, ...given };
  for (const [name, rule] of Object.entries(rules) as Array<[string, RateLimitRule | false]>) {
    if (rule === false) continue;
    if (!Number.isInteger(rule.limit) || rule.limit < 1 || !Number.isFinite(rule.windowMs) || rule.windowMs <= 0) {
      throw new AuthError('config', `authgate: rate limit ${name} needs a whole limit >= 1 and a positive windowMs`);
    }
  }
  return rules;
}
