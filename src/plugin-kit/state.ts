/** The plugin kit: the state store (TTL, one-shot, counters) and rate limits. */
export { DEFAULT_LOCKOUT, Lockout, type LockoutRule } from '../core/limits/lockout';
export { ACCOUNT_RATE_LIMITS, type AccountRateLimit, RateLimiter, type RateLimitRule, resolveIpv6Prefix, resolveRules } from '../core/limits/rate-limiter';
export { ANNOUNCED_CACHE_TTL_MS, AnnouncedCache, type AnnouncedMap } from '../core/state/announced-cache';
export { stateCall } from '../core/state/state-call';
export { type StateStore } from '../core/state/state-store';
