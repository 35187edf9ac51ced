import { count } from '../../base/telemetry';
import { createHash } from 'node:crypto';
import { addressGroup } from '../../internal/client-ip';
import { DEFAULT_IPV6_RATE_LIMIT_PREFIX, RateLimitError } from './rate-limiter';
import type { StateStore } from '../state/state-store';

/** How wrong passwords slow further attempts on one account. */
export interface LockoutRule {
  /** Wrong passwords allowed before the first delay. @default 5 */
  freeFailures: number;
  /** The first delay, doubled with every further wrong password. @default 1000 */
  firstDelayMs: number;
  /** The longest delay. @default 900000 (15 minutes) */
  maxDelayMs: number;
  /** How long wrong passwords are counted after the last one. @default 86400000 (a day) */
  windowMs: number;
}

/** The defaults of {@link LockoutRule}. */
export const DEFAULT_LOCKOUT: LockoutRule = { freeFailures: 5, firstDelayMs: 1000, maxDelayMs: 15 * 60_000, windowMs: 24 * 3_600_000 };

/**
 * Growing delays after wrong passwords, counted per account and client IP: past `freeFailures`,
 * each wrong password makes the next attempt wait twice as long (up to `maxDelayMs`; answered 429
 * with Retry-After, before the password is even checked), and a right one clears the count. No
 * permanent lock: an attacker on one address slows only his own attempts; the owner elsewhere
 * logs in as usual. Counts live in the state store (shared by instances that share it).
 */
export class Lockout {
  /**
   * @param store - where counts and delays live.
   * @param rule - thresholds and delays.
   * @param ipv6Prefix - an IPv6 client is counted by its network of this many bits.
   */
  constructor(
    private readonly store: StateStore,
    private readonly rule: LockoutRule = DEFAULT_LOCKOUT,
    private readonly ipv6Prefix = DEFAULT_IPV6_RATE_LIMIT_PREFIX,
  ) {}

  private key(kind: 'failures' | 'until', email: string, ip: string): string {
    return `lockout-${kind}:${createHash('sha256')
      .update(`${email}\n${addressGroup(ip, this.ipv6Prefix)}`)
      .digest('base64url')}`;
  }

  /** Throws a {@link RateLimitError} while attempts on `email` from `ip` must wait. */
  async check(email: string, ip: string): Promise<void> {
    const until = await this.store.get<number>(this.key('until', email, ip));
    if (until !== undefined && until > Date.now()) {
      count('authgate.lockouts');
      throw new RateLimitError(Math.max(1, Math.ceil((until - Date.now()) / 1000)));
    }
  }

  /** Counts a wrong password; past the free ones, the next attempt must wait. */
  async failed(email: string, ip: string): Promise<void> {
    const failures = await this.store.increment(this.key('failures', email, ip), this.rule.windowMs);
    const over = failures - this.rule.freeFailures;
    if (over <= 0) return;
    const delay = Math.min(this.rule.maxDelayMs, this.rule.firstDelayMs * 2 ** Math.min(over - 1, 30));
    await this.store.set(this.key('until', email, ip), Date.now() + delay, delay);
  }

  /** A right password: the count starts again. */
  async succeeded(email: string, ip: string): Promise<void> {
    await Promise.all([this.store.delete(this.key('failures', email, ip)), this.store.delete(this.key('until', email, ip))]);
  }
}
