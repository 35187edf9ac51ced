import type { ServerResponse } from 'node:http';
import type { PluginTokens } from '../../plugin-kit/plugin-api';
import { sendJson, sendRedirect, redirectTarget, type RedirectPolicy } from '../../plugin-kit/http';
import type { CompletedLogin, LoginRequest } from '../../plugin-kit/providers';
import { claimsShapeError, isPlainObject, type Claims, type User } from '../../plugin-kit/sessions';
import type { TwoFactor } from './two-factor-service';
import { TWO_FACTOR_COOKIE } from './two-factor-options';

const PENDING_ID = 'second-factor';

/** A login waiting for its second factor, as read back from its cookie. */
export interface PendingLogin {
  /** The pending token's id (the login completes once). */
  id: string;
  login: CompletedLogin;
}

/**
 * Logins that wait for a second factor: a first factor of a user with two-factor on (through
 * any provider) yields a short-lived pending token in the `2FA-TOKEN`
 * cookie instead of a session. It carries no `user` claim, so no middleware takes it for a login.
 */
export class PendingLogins {
  /**
   * @param tokens - signs and reads the pending token.
   * @param twoFactor - the users' second factors.
   * @param options - own URL and redirect allowlist.
   */
  constructor(
    private readonly tokens: PluginTokens,
    private readonly twoFactor: TwoFactor,
    private readonly options: RedirectPolicy,
  ) {}

  /**
   * `true` when this login must wait for a second factor: its user (the one it resolved to, after
   * linked logins) has two-factor on, whatever the provider, unless the login proved two factors.
   */
  async mustWait(login: CompletedLogin): Promise<boolean> {
    if (login.multiFactor) return false;
    return this.twoFactor.isOn(login.user.id);
  }

  /** Holds the login: the pending cookie, then a 303 to an allowed `from`, or 202 `{"status":"second factor required"}`. */
  async hold(res: ServerResponse, login: CompletedLogin): Promise<void> {
    const pending = { provider: login.provider, user: login.user, noAva: login.noAva === true, loginId: login.loginId };
    const claims: Claims = { aud: login.aud, sess_only: login.sessionOnly ? true : undefined, handshake: { id: PENDING_ID, from: login.from }, pending };
    await this.tokens.sendShortLivedCookie(res, TWO_FACTOR_COOKIE, claims, { durationMs: this.twoFactor.options.pendingMs });
    res.setHeader('Cache-Control', 'no-store');
    const location = login.from ? redirectTarget(login.from, this.options.url, this.options.allowedRedirectHosts) : undefined;
    if (location) return sendRedirect(res, 303, location);
    sendJson(res, 202, { status: 'second factor required', verify: 'POST /2fa/verify {"code"}' });
  }

  /** The login waiting in this browser, if any (unexpired, well-formed). */
  async read(req: LoginRequest): Promise<PendingLogin | undefined> {
    const claims = await this.tokens.readShortLivedCookie(req.raw, TWO_FACTOR_COOKIE);
    const pending = claims?.pending;
    if (!claims || claims.user !== undefined || claims.handshake?.id !== PENDING_ID || typeof claims.jti !== 'string' || !isPlainObject(pending)) return undefined;
    if (typeof pending.provider !== 'string' || claimsShapeError({ user: pending.user }) !== undefined || pending.user === undefined) return undefined;
    const login: CompletedLogin = {
      provider: pending.provider,
      user: pending.user as User,
      aud: typeof claims.aud === 'string' ? claims.aud : undefined,
      sessionOnly: claims.sess_only === true,
      noAva: pending.noAva === true,
      loginId: typeof pending.loginId === 'string' ? pending.loginId : undefined,
      from: claims.handshake.from,
      multiFactor: true,
    };
    return { id: claims.jti, login };
  }

  /** Clears the pending cookie. */
  clear(res: ServerResponse): void {
    this.tokens.clearCookie(res, TWO_FACTOR_COOKIE);
  }
}
