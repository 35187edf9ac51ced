import { createHash } from 'node:crypto';
import { AuthError, configError } from '../../base/errors';
import { type Logger, logTo } from '../../base/logger';
import { safeFetch } from '../../internal/safe-fetch';

/**
 * The check of new passwords against a list of passwords known from breaches, through a
 * k-anonymity range API such as Have I Been Pwned's: only the first 5 hex characters of the
 * password's SHA-1 are sent; the API answers every suffix it knows for that prefix
 * (`SUFFIX:COUNT` lines, padded with zero counts when asked with `Add-Padding: true`), and the
 * match is made here. Neither the password nor its full hash leaves the process.
 */
export interface BreachedPasswordOptions {
  /**
   * The range API, to which the 5-character prefix is appended (a mirror of your own works the
   * same). It comes from your configuration, never from a request, so it may be on a private network.
   * @default 'https://api.pwnedpasswords.com/range/'
   */
  url?: string | undefined;
  /**
   * When the API cannot be asked (down, slow, a bad answer): `true` accepts the password and logs a
   * warning; `false` refuses the change with 503 `unavailable` (nothing is saved; the user tries again).
   * @default true
   */
  failOpen?: boolean | undefined;
  /** How long the API has to answer, in ms. @default 3000 */
  timeoutMs?: number | undefined;
  /** How many sightings in breaches refuse a password. @default 1 */
  minCount?: number | undefined;
}

const DEFAULT_URL = 'https://api.pwnedpasswords.com/range/';

/**
 * Makes the check of {@link BreachedPasswordOptions}: it resolves when the password may be used,
 * and throws 400 `password_breached` when the API knows it (or 503 `unavailable` when the API
 * cannot be asked and `failOpen` is `false`). Option mistakes fail here, at start-up.
 */
export function breachedPasswordCheck(options: BreachedPasswordOptions = {}, logger?: Logger): (password: string) => Promise<void> {
  const base = options.url ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw configError(`breached passwords: url ${JSON.stringify(base)} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw configError('breached passwords: url must be http(s)');
  const timeoutMs = options.timeoutMs ?? 3000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) throw configError('breached passwords: timeoutMs must be a whole number from 1 to 60000');
  const minCount = options.minCount ?? 1;
  if (!Number.isInteger(minCount) || minCount < 1) throw configError('breached passwords: minCount must be a whole number >= 1');
  const failOpen = options.failOpen ?? true;
  return async (password) => {
    const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const prefix = hash.slice(0, 5);
    let body: string;
    try {
      const answer = await safeFetch(`${base}${prefix}`, {
        timeoutMs,
        maxBytes: 2 * 1024 * 1024,
        allowPrivateNetworks: true,
        accept: 'text/plain',
        headers: { 'Add-Padding': 'true' },
      });
      body = answer.toString('utf8');
      if (!/^[0-9A-Fa-f]{35}:\d+\r?$/m.test(body) && body.trim() !== '') throw new Error('the answer is not a list of SUFFIX:COUNT lines');
    } catch (err) {
      // Not the error's message: it names the URL, whose path holds the hash prefix.
      const why = (err as { status?: number }).status !== undefined ? `status ${(err as { status: number }).status}` : ((err as Error).name ?? 'error');
      if (logger !== undefined)
        logTo(logger).warn('breached-password check: the range API at {host} did not answer ({error}); the password was {outcome}', {
          host: parsed.host,
          error: why,
          outcome: failOpen ? 'accepted (failOpen)' : 'refused',
        });
      if (failOpen) return;
      throw new AuthError('unavailable', 'the password cannot be checked now; try again in a moment');
    }
    const suffix = hash.slice(5);
    for (const line of body.split('\n')) {
      const [candidate, count] = line.trim().split(':');
      if (candidate?.toUpperCase() === suffix && Number(count) >= minCount) {
        throw new AuthError('bad_request', 'this password appears in a list of breached passwords; choose another', { reason: 'password_breached' });
      }
    }
  };
}
