import type { ServerResponse } from 'node:http';
import type { AvatarProxy } from '../core/avatar/proxy';
import { AuthError } from '../base/errors';
import { sendJson, sendRedirect } from '../internal/http';
import { redirectTarget } from '../internal/redirect-policy';
import type { RedirectPolicy } from '../internal/redirect-policy';
import type { CrossSitePolicy } from '../internal/cross-origin';
import type { TokenService } from '../core/token/token-service';
import { jtiHash, sessionJti, type SessionRegistry } from '../core/sessions/session-registry';
import { clientOf, type EventBus } from '../core/events/event-bus';
import type { LoginPhases } from '../plugin-api/plugin';
import type { CompletedLogin, LoginRequest } from '../providers/provider';
import type { UserDirectory } from '../core/users/user-directory';
import { setAdmin } from '../core/token/user';
import { claimsShapeError } from '../core/token/claims';

/** What the end of a login needs to know of the service. */
export interface LoginCompleterOptions extends RedirectPolicy {
  /** The audiences a login may ask for; `undefined` allows only the issuer. */
  audiences: readonly string[] | undefined;
  issuer: string;
  crossSite: CrossSitePolicy;
  /** The ids of `createAuth({ admins })`. */
  admins: ReadonlySet<string>;
}

/**
 * The end of every login, whatever the provider, in a fixed order: cross-site check, the plugins'
 * `resolve` phase (a link started in this browser, the user a linked login resolves to), their
 * `hold` phase (a wait for the second factor), audience check, avatar, session token (a new `jti`,
 * recorded as a session), the user directory, cookies, then a 303 to an allowed `from` or the user JSON.
 */
export class LoginCompleter {
  /**
   * @param tokens - issues the session.
   * @param avatars - stores the avatar.
   * @param sessions - records the session.
   * @param phases - the plugins' login phases.
   * @param users - records every completed login.
   * @param options - audiences, issuer, own URL, redirect allowlist and cross-site policy.
   * @param events - records `login.succeeded`, and `login.failed` for a banned user.
   * @param signInPolicy - asks the plugins' sign-in policies about a login that resolved to its user (`made`: as its provider made it).
   */
  constructor(
    private readonly tokens: TokenService,
    private readonly avatars: AvatarProxy,
    private readonly sessions: SessionRegistry,
    private readonly phases: LoginPhases,
    private readonly users: UserDirectory,
    private readonly options: LoginCompleterOptions,
    private readonly events: EventBus,
    private readonly signInPolicy?: (resolved: CompletedLogin, made: CompletedLogin) => Promise<void>,
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
      throw new AuthError('forbidden', 'cross-site login refused: start the login on this site', { reason: 'cross_site' });
    }
    // A provider's data (a mapUser passing a provider's object on) must not reach the user store half-typed.
    const shapeError = claimsShapeError({ user: login.user });
    if (shapeError !== undefined) throw new AuthError('bad_gateway', `the provider gave a user authgate cannot use (${shapeError})`);
    const given: CompletedLogin = { ...login, loginId: login.user.id };
    const resolved = this.phases.resolve ? await this.phases.resolve(req, res, given) : given;
    if (resolved === undefined) return;
    // Every login, whatever its provider, as the user it resolved to (SSO enforcement reaches passkeys too).
    await this.signInPolicy?.(resolved, given);
    if (this.phases.hold && (await this.phases.hold(req, res, resolved))) return;
    return this.startSession(req, res, resolved);
  }

  /** Avatar, session token, session record and cookies, then the answer (also of a login whose second factor came). */
  async startSession(req: LoginRequest, res: ServerResponse, login: CompletedLogin): Promise<void> {
    const aud = this.resolveAudience(login.aud);
    const { aud: _requested, ...user } = login.user;
    // Before the claims updater, which sees the flag and may still change it. The record read
    // here is the one recordLogin needs below.
    const read = { record: await this.users.get(user.id) };
    if (this.options.admins.has(user.id) || read.record?.adminGrant === true) setAdmin(user, true);
    user.picture = await this.avatars.put(user, login.noAva ?? false);
    const { token, claims } = await this.tokens.create({
      aud,
      user,
      sess_only: login.sessionOnly ? true : undefined,
      'no-ava': login.noAva ? true : undefined,
      auth_provider: { name: login.provider },
      auth_time: Math.floor(Date.now() / 1000),
      jti: sessionJti(),
    });
    // After the claims updater (the directory keeps whether the token says admin), before the
    // session exists: a banned user's login ends here.
    try {
      const recorded = claims.user ?? user;
      // A claims updater may have changed the id: then the record is another one, read afresh.
      await this.users.recordLogin(recorded, { provider: login.provider, id: login.loginId ?? user.id }, Date.now(), recorded.id === user.id ? read : undefined);
    } catch (err) {
      if (err instanceof AuthError && err.reason === 'banned') {
        this.events.emit({ type: 'login.failed', userId: user.id, actor: { kind: 'user', id: user.id }, data: { provider: login.provider, reason: 'banned' } }, clientOf(req));
      }
      throw err;
    }
    await this.sessions.start(claims, { userAgent: req.raw.headers['user-agent'], ip: req.ip });
    this.events.emit(
      {
        type: 'login.succeeded',
        userId: user.id,
        actor: { kind: 'user', id: user.id },
        session: jtiHash(claims.jti as string),
        data: { provider: login.provider, ...(login.loginId && login.loginId !== user.id ? { login: login.loginId } : {}) },
      },
      clientOf(req),
    );
    this.tokens.send(res, token, claims);
    const location = login.from ? redirectTarget(login.from, this.options.url, this.options.allowedRedirectHosts) : undefined;
    if (location) return sendRedirect(res, 303, location);
    sendJson(res, 200, { ...claims.user, aud: claims.aud });
  }
}
