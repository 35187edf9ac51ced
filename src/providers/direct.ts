import { logTo } from '../base/logger';
import type { ServerResponse } from 'node:http';
import { AuthError, configError, errorName } from '../base/errors';
import { toFunction, type MaybePromise } from '../core/token/hooks';
import { identityKey } from '../internal/email-address';
import { hasUnusableChars } from '../internal/text';
import { hashId } from '../core/token/user';
import { RateLimitError } from '../core/limits/rate-limiter';
import { StoreUnavailableError } from '../internal/guarded-store';
import { loginAudience, loginField, loginFlag, requireObjectBody } from './login-fields';
import type { LoginRequest, Provider, ProviderKit } from './provider';

/** What a credential checker learns of the login besides the credentials. */
export interface LoginContext {
  /** The client IP (Express's `req.ip`, so `trust proxy` applies). */
  ip: string;
}

/**
 * A checker's verdict: `false`, `true` (the user id hashes the user name), or the user's stable
 * `subject` that the user id hashes instead (an account's immutable id, so that a token of a
 * deleted account is never taken for a later account with the same name), with the user's
 * `email` when the checker has verified it (it goes into the token's user).
 */
export type CheckResult = boolean | { subject: string; email?: string };

/**
 * Checks a user name and password. A function or an object with `check`. May be async. The object
 * may also give `normalizeUser`, the one form of a user name (e.g. a canonical e-mail), used for
 * the check, the rate limit and the name in the token (and the user id, unless the check names a subject).
 */
export type CredentialChecker =
  | ((user: string, passwd: string, context: LoginContext) => MaybePromise<CheckResult>)
  | { check(user: string, passwd: string, context: LoginContext): MaybePromise<CheckResult>; normalizeUser?(user: string): string | undefined };

/**
 * Login with a user name and password checked by the app. `GET /<name>/login?user=&passwd=` or a
 * POST with the same fields as JSON or a form; also `aud`, `session=1`, `from`, `noava=1`.
 * The user id is `<name>_<sha1 of the user name>` (or of the subject the checker names).
 */
export class DirectProvider implements Provider {
  /** GET with a query or POST with a form or JSON. */
  readonly methods = { login: ['GET', 'POST'] } as const;
  /** @inheritdoc */
  readonly authMethods = ['pwd'] as const;

  private readonly check: (user: string, passwd: string, context: LoginContext) => MaybePromise<CheckResult>;
  private readonly normalizeUser: (user: string) => string;

  /**
   * @param name - provider name.
   * @param checker - decides the credentials.
   */
  constructor(
    readonly name: string,
    checker: CredentialChecker,
  ) {
    const fn = toFunction<[string, string, LoginContext], MaybePromise<CheckResult>>(checker, 'check');
    if (fn === undefined) throw configError('addDirectProvider() needs a credential checker');
    this.check = fn;
    const normalize = typeof checker === 'object' ? checker.normalizeUser?.bind(checker) : undefined;
    this.normalizeUser = (user) => normalize?.(user) ?? user;
  }

  /** @inheritdoc */
  async login(req: LoginRequest, res: ServerResponse, kit: ProviderKit): Promise<void> {
    requireObjectBody(req);
    const typed = loginField(req, 'user');
    const passwd = loginField(req, 'passwd') ?? loginField(req, 'password');
    if (!typed || !passwd) throw new AuthError('bad_request', 'user and passwd are required');
    if (hasUnusableChars(typed)) throw new AuthError('bad_request', 'user must not contain control characters');
    const user = this.normalizeUser(typed);
    await kit.rateLimit('loginPerIp', req.ip);
    await kit.checkAction('login', req);
    // Before the password is checked: a refusal says nothing about it.
    await kit.checkSignIn(user, 'password');
    let ok: boolean;
    let subject = user;
    let email: string | undefined;
    try {
      const verdict = await this.check(user, passwd, { ip: req.ip });
      ok = verdict === true || (typeof verdict === 'object' && verdict !== null && typeof verdict.subject === 'string' && verdict.subject !== '');
      if (ok && typeof verdict === 'object') {
        subject = verdict.subject;
        if (typeof verdict.email === 'string' && verdict.email !== '') email = verdict.email;
      }
    } catch (err) {
      // A checker that slows attempts (the account bridge's lockout) answers as a rate limit does.
      if (err instanceof RateLimitError) throw err;
      // A checker's own AuthError is an answer it chose to give (the account bridge: "not activated").
      if (err instanceof AuthError) throw err;
      if (err instanceof StoreUnavailableError) throw new AuthError('unavailable', 'a store is unavailable, try again', { cause: err });
      // Only the error's name: a checker's message may carry connection strings or passwords.
      logTo(kit.logger).error('{provider}: credential check threw {error}', { provider: this.name, error: errorName(err) });
      throw new AuthError('internal', 'failed to check user credentials', { cause: err });
    }
    // An address the checker gave, other than the one typed, is asked about only now; a refusal of
    // it (SSO enforced for its domain) is answered as a wrong password, or it would tell a stranger
    // guessing that the password was right.
    let refusedAs: string | undefined;
    if (ok && email !== undefined && identityKey(email) !== identityKey(user)) refusedAs = await this.addressRefusal(kit, email);
    if (!ok || refusedAs !== undefined) {
      // Failures only: strangers' wrong guesses must not keep the owner out (429 past the limit).
      kit.event(
        { type: 'login.failed', userId: hashId(this.name, user), actor: { kind: 'user' }, data: { provider: this.name, identity: identityKey(user), reason: refusedAs ?? 'credentials_rejected' } },
        req,
      );
      await kit.actionFailed('login', req, user);
      await kit.rateLimit('loginPerUser', `${this.name}:${identityKey(user)}`);
      throw new AuthError('forbidden', 'incorrect user or password', { reason: 'credentials_rejected' });
    }
    await kit.actionSucceeded('login', req, user);
    await kit.completeLogin(req, res, {
      provider: this.name,
      judged: identityKey(user),
      user: { name: user, id: hashId(this.name, subject), picture: '', ...(email !== undefined ? { email } : {}) },
      aud: loginAudience(req),
      sessionOnly: loginFlag(req, 'session', 'sess'),
      noAva: loginFlag(req, 'noava'),
      from: loginField(req, 'from'),
    });
  }

  /** Why the sign-in policy refuses `address` (403 only: an outage is answered as one), or `undefined`. */
  private async addressRefusal(kit: ProviderKit, address: string): Promise<string | undefined> {
    try {
      await kit.checkSignIn(address, 'password');
      return undefined;
    } catch (err) {
      if (err instanceof AuthError && err.status === 403) return err.reason;
      throw err;
    }
  }
}
