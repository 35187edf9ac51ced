import { AuthError, configError } from '../../plugin-kit/helpers';
import type { Account } from './account';

/**
 * What the system an app moves from says of an e-mail and password it checked: the person (with
 * what it knows of them), or `false` for a wrong password or an unknown person there.
 */
export type LegacyVerdict =
  | false
  | {
      /** Whether that system had verified the address: an unverified one arrives not activated. @default false */
      emailVerified?: boolean | undefined;
      firstName?: string | undefined;
      lastName?: string | undefined;
    };

/**
 * Asks the system an app moves from whether an e-mail and password are right (for instance
 * Auth0's resource-owner password grant). Called only for an address with no account here, or
 * whose account has no password of its own yet (imported without a hash, or a sign-up never
 * activated); never for an account that has a password here. `context.signal` aborts when the
 * time limit passes: hand it to `fetch`, so a hung old system holds no connection.
 */
export type LegacyLogin = (email: string, password: string, context: { signal: AbortSignal }) => Promise<LegacyVerdict>;

/** Lazy migration: the old system's check, within a time limit, and the account it moves in. */
export interface LegacyLoginOptions {
  /** The check of the old system. */
  check: LegacyLogin;
  /** How long the old system may take, in ms: past it the login answers 503 and nothing is written. @default 10000 */
  timeoutMs?: number | undefined;
}

/** The check and its time limit, as the account service runs them. */
export interface ResolvedLegacyLogin {
  check: LegacyLogin;
  timeoutMs: number;
}

/** Checks the `legacyLogin` option at start-up. */
export function resolveLegacyLogin(given: LegacyLoginOptions | undefined): ResolvedLegacyLogin | undefined {
  if (given === undefined) return undefined;
  if (typeof given?.check !== 'function') throw configError('legacyLogin needs { check: async (email, password) => false | { emailVerified } }');
  const timeoutMs = given.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 60_000) throw configError('legacyLogin.timeoutMs must be a whole number of ms from 1 to 60000');
  return { check: given.check, timeoutMs };
}

/** Whether the old system is asked about a login to `account`: none here, or one with no password of its own yet. */
export function asksLegacy(account: Account | undefined): boolean {
  return account === undefined || account.Pwd === '' || !account.Approved;
}

/**
 * The old system's verdict, within its time limit. A verdict that comes after the limit is
 * ignored: the login was answered 503 and nothing is written for it later.
 * @throws AuthError (`unavailable`) when the old system fails or does not answer in time.
 */
export async function askLegacy(legacy: ResolvedLegacyLogin, email: string, password: string): Promise<LegacyVerdict> {
  let timer: NodeJS.Timeout | undefined;
  const abort = new AbortController();
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error(`no answer within ${legacy.timeoutMs} ms`));
    }, legacy.timeoutMs);
  });
  try {
    const verdict = await Promise.race([Promise.resolve().then(() => legacy.check(email, password, { signal: abort.signal })), late]);
    if (verdict === false) return false;
    if (typeof verdict !== 'object' || verdict === null) throw new Error('legacyLogin.check answered neither false nor a person');
    return verdict;
  } catch (err) {
    throw new AuthError('unavailable', 'the sign-in this app moved from did not answer: try again', { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
