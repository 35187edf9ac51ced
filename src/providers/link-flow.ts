import type { CredentialNotices } from '../core/credentials/credential-notices';
import type { ServerResponse } from 'node:http';
import { AuthError } from '../base/errors';
import { sendJson } from '../internal/http';
import type { CrossSitePolicy } from '../internal/cross-origin';
import { SESSION_JTI_PREFIX, type SessionRegistry } from '../core/sessions/session-registry';
import { stateCall } from '../core/state/state-call';
import { isPlainObject, type Claims } from '../core/token/claims';
import type { TokenService } from '../core/token/token-service';
import type { User } from '../core/token/user';
import type { LoginIdentity, LoginLinks } from './login-links';
import type { CompletedLogin, LoginRequest, Provider } from './provider';

/** The cookie that carries a started link: signed, HttpOnly, a session cookie. */
export const LINK_COOKIE = 'LINK-TOKEN';

/** How long a started link waits for its login. */
export const LINK_DURATION_MS = 10 * 60_000;

/** A link started by a logged-in user, waiting for a login with `provider`. */
export interface LinkIntent {
  /** The intent token's own id (one-shot). */
  id: string;
  provider: string;
  /** The session's login: the user the new login is linked to, its provider, audience and cookie kind. */
  owner: Required<Pick<CompletedLogin, 'provider' | 'user' | 'aud' | 'sessionOnly'>>;
  /** The `jti` of the session that started it: linking needs it to be live still. */
  session: string;
}

const handshakeId = (provider: string): string => `link:${provider}`;

/** A call into the links (an app's store): its AuthErrors stand, any other failure is a 503. */
async function linksCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AuthError) throw err;
    throw new AuthError('unavailable', 'linked logins are unavailable, try again', { cause: err });
  }
}

function intentOf(claims: Claims, provider: string): LinkIntent | undefined {
  const link = claims.link;
  if (claims.user !== undefined || claims.handshake?.id !== handshakeId(provider) || !isPlainObject(link) || !isPlainObject(link.owner)) return undefined;
  const { via, session } = link;
  const { id, name } = link.owner;
  const fields = [via, session, id, name, claims.jti, claims.aud];
  if (!fields.every((f) => typeof f === 'string') || id === '') return undefined;
  const owner = { provider: via as string, user: { id: id as string, name: name as string, picture: '' }, aud: claims.aud as string, sessionOnly: claims.sess_only === true };
  return { id: claims.jti as string, provider, owner, session: session as string };
}

/**
 * Linking a login to the logged-in user: `POST /<provider>/link` (logged in, with XSRF) leaves a
 * signed intent in the `LINK-TOKEN` cookie; the next login with that provider in this browser
 * (within 10 minutes, while the session that started it lives) is linked to that user, who gets
 * a new session, instead of logging in on its own.
 * A cross-site completion is taken only from logins bound to this browser (an OAuth2 `state`), so
 * a mailed link of someone else cannot be slipped in. Logins resolve through the links too.
 */
export class LinkFlow {
  private links: LoginLinks | undefined;

  /**
   * @param tokens - signs and reads the intent.
   * @param sessions - the live session that started a link; the linked login's own sessions end.
   * @param useOnce - makes an intent one-shot across instances.
   * @param options - the cross-site policy.
   */
  constructor(
    private readonly tokens: TokenService,
    private readonly sessions: SessionRegistry,
    private readonly useOnce: (key: string, ttlMs: number) => Promise<boolean>,
    private readonly options: { crossSite: CrossSitePolicy },
    private readonly notices: CredentialNotices,
  ) {}

  /** Sets where logins are linked. */
  use(links: LoginLinks): void {
    this.links = links;
  }

  /**
   * Starts linking a login with `provider` to the user of `claims` (a recorded session).
   * @throws AuthError 404 when no links are set, 403 for a token of no recorded session, or what the links refuse.
   */
  async start(res: ServerResponse, claims: Claims, provider: Provider): Promise<void> {
    const links = this.links;
    if (links === undefined) throw new AuthError('not_found', 'linking logins is not set up (auth.useLoginLinks)');
    const user = claims.user as User;
    if (typeof claims.jti !== 'string' || !claims.jti.startsWith(SESSION_JTI_PREFIX)) throw new AuthError('forbidden', 'only a login session of this site can link logins');
    const owner: LoginIdentity = { provider: claims.auth_provider?.name ?? '', user };
    await linksCall(() => links.check(owner, provider.name));
    const link = { via: owner.provider, owner: { id: user.id, name: user.name }, session: claims.jti };
    const intent: Claims = { aud: claims.aud, sess_only: claims.sess_only, handshake: { id: handshakeId(provider.name) }, link };
    await this.tokens.sendShortLivedCookie(res, LINK_COOKIE, intent, { durationMs: LINK_DURATION_MS, crossSite: provider.crossSiteCallback });
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, { status: 'linking', provider: provider.name, expires: Date.now() + LINK_DURATION_MS });
  }

  /** Drops the link this browser started, if any (a login that failed, a provider's page left). */
  cancel(res: ServerResponse): void {
    this.tokens.clearCookie(res, LINK_COOKIE);
    res.setHeader('Cache-Control', 'no-store');
    sendJson(res, 200, { status: 'cancelled' });
  }

  /** The link this browser started for a login with `provider`, if any. */
  async pending(req: LoginRequest, provider: string): Promise<LinkIntent | undefined> {
    if (this.links === undefined) return undefined;
    const claims = await this.tokens.readShortLivedCookie(req.raw, LINK_COOKIE);
    return claims && intentOf(claims, provider);
  }

  /**
   * Links the completed login to the user who started the link, ends the login's own sessions
   * and the session that started it, and gives the login that user logs in with now (the OAuth2
   * handshake took the place of the old session's cookie, so a new session follows). The intent
   * is cleared whatever happens.
   */
  async link(req: LoginRequest, res: ServerResponse, login: CompletedLogin, intent: LinkIntent): Promise<LinkIntent['owner']> {
    const links = this.links as LoginLinks;
    this.tokens.clearCookie(res, LINK_COOKIE);
    res.setHeader('Cache-Control', 'no-store');
    if (!login.boundToBrowser && this.options.crossSite.isCrossSite(req.raw)) {
      throw new AuthError('forbidden', 'to link this login, open its link in the browser that started linking (paste it in the address bar)');
    }
    const { owner } = intent;
    const status = await stateCall(() => this.sessions.status(intent.session, owner.user.id));
    if (status !== 'active') throw new AuthError('unauthorized', 'the session that started linking has ended: log in and start again');
    if (!(await this.useOnce(`link:${intent.id}`, LINK_DURATION_MS))) throw new AuthError('forbidden', 'this link was completed already: start again');
    const identity: LoginIdentity = { provider: login.provider, user: login.user };
    if (identity.user.id === owner.user.id) throw new AuthError('conflict', 'this login is the one you are logged in with');
    await linksCall(() => links.link(owner, identity));
    // From now on this login is the owner's: sessions it made on its own end, and so does the replaced one.
    await stateCall(() => this.sessions.revokeAll(identity.user.id));
    await stateCall(() => this.sessions.revoke(intent.session));
    this.notices.notify(owner.user, { kind: 'linked login', change: 'added', detail: login.provider });
    return owner;
  }

  /** The user a login logs in as: the user it is linked to (with the login's picture when that has none), or its own. */
  async resolve(login: CompletedLogin): Promise<User> {
    const links = this.links;
    if (links === undefined) return login.user;
    const linked = await linksCall(() => links.resolve({ provider: login.provider, user: login.user }));
    return linked ? { ...linked, picture: linked.picture || login.user.picture } : login.user;
  }
}
