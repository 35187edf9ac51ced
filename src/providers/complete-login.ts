import type { ServerResponse } from 'node:http';
import type { AvatarProxy } from '../avatar/proxy';
import { AuthError } from '../errors';
import { sendJson, sendRedirect } from '../internal/http';
import { redirectTarget } from '../internal/redirect-policy';
import type { ResolvedOptions } from '../options';
import type { TokenService } from '../token/token-service';
import { sessionJti, type SessionRegistry } from '../sessions/session-registry';
import type { LinkFlow } from './link-flow';
import type { PendingLogins } from '../two-factor/pending-login';
import type { CompletedLogin, LoginRequest } from './provider';
import type { UserDirectory } from '../users/user-directory';

/**
 * The end of every login, whatever the provider: cross-site check, a link started in this browser
 * (see {@link LinkFlow}) or the user the login resolves to, a wait for the second factor (see
 * {@link PendingLogins}), audience check, avatar, session token
 * (a new `jti`, recorded as a session) and cookies, then a 303 to an allowed `from` or the user JSON.
 */
export class LoginCompleter {
  /**
   * @param tokens - issues the session.
   * @param avatars - stores the avatar.
   * @param sessions - records the session.
   * @param links - linking and linked logins.
   * @param pending - logins that wait for a second factor (absent without `twoFactor`).
   * @param users - records every completed login.
   * @param options - audiences, issuer, own URL, redirect allowlist and cross-site policy.
   */
  constructor(
    private readonly tokens: TokenService,
    private readonly avatars: AvatarProxy,
    private readonly sessions: SessionRegistry,
    private readonly links: LinkFlow,
    private readonly pending: PendingLogins | undefined,
    private readonly users: UserDirectory,
    private readonly options: Pick<ResolvedOptions, 'audiences' | 'issuer' | 'url' | 'allowedRedirectHosts' | 'crossSite'>,
  ) {}

  /**
   * The audience of a login: the requested one, else the first allowed one, else the issuer.
   * @throws AuthError 403 when the requested audience is not allowed.
   */
  resolveAudience(requested: string | undefined): string {
    const aud = requested || (this.options.audiences?.[0] ?? this.options.issuer);
    if (this.options.audiences !== undefined && !this.options.audiences.includes(aud)) {
      throw new AuthError('forbidden', `aud ${JSON.stringify(aud.slice(0, 64))} is not allowed`);
    }
    return aud;
  }

  /** Completes a login; see the class description. */
  async complete(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<void> {
    if (!login.allowCrossSite && this.options.crossSite.isCrossSite(req.raw)) {
      // Login CSRF: another site must not log this browser in (for instance into its own account).
      throw new AuthError('forbidden', 'cross-site login refused: start the login on this site');
    }
    const intent = await this.links.pending(req, login.provider);
    if (intent) {
      const owner = await this.links.link(req, res, login, intent);
      await this.users.addLogin(owner.user.id, { provider: login.provider, id: login.user.id });
      return this.startSession(req, res, { ...owner, from: login.from, noAva: true });
    }
    const resolved: CompletedLogin = { ...login, user: await this.links.resolve(login), loginId: login.user.id };
    if (await this.pending?.mustWait(resolved)) return this.pending?.hold(res, { ...resolved, aud: this.resolveAudience(resolved.aud) });
    return this.startSession(req, res, resolved);
  }

  /** Avatar, session token, session record and cookies, then the answer (also of a login whose second factor came). */
  async startSession(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<void> {
    const aud = this.resolveAudience(login.aud);
    const { aud: _requested, ...user } = login.user;
    user.picture = await this.avatars.put(user, login.noAva ?? false);
    await this.users.recordLogin(user, { provider: login.provider, id: login.loginId ?? user.id });
    const { token, claims } = await this.tokens.create({
      aud,
      user,
      sess_only: login.sessionOnly ? true : undefined,
      'no-ava': login.noAva ? true : undefined,
      auth_provider: { name: login.provider },
      auth_time: Math.floor(Date.now() / 1000),
      jti: sessionJti(),
    });
    await this.sessions.start(claims, { userAgent: req.raw.headers['user-agent'], ip: req.ip });
    this.tokens.send(res, token, claims);
    const location = login.from ? redirectTarget(login.from, this.options.url, this.options.allowedRedirectHosts) : undefined;
    if (location) return sendRedirect(res, 303, location);
    sendJson(res, 200, { ...claims.user, aud: claims.aud });
  }
}
