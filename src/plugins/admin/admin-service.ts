import type { ServerResponse } from 'node:http';
import { type PluginAuthenticator, ORGANIZATIONS_SERVICE, type PluginContext } from '../../plugin-kit/plugin-api';
import { AuthError, type UserList, isBanned, type UserRecord, type EventClient, type EventListOptions, type AuthEvent, logTo, errorName } from '../../plugin-kit/helpers';
import { jtiHash, sessionJti, type SessionInfo, type Claims, isAdmin as hasAdminAttr, type User } from '../../plugin-kit/sessions';
import { stateCall } from '../../plugin-kit/state';
import type { ResolvedAdminOptions } from './admin-options';

/** A user as the admin routes show it: the directory's record and how many live sessions it has. */
export interface AdminUserView extends UserRecord {
  sessions: number;
}

/** One user in full: the record, its sessions, credentials by kind, and organizations when that plugin is on. */
export interface AdminUserDetail extends UserRecord {
  sessions: SessionInfo[];
  credentials: Array<{ id: string; kind: string; label: string; created: number; lastUsed: number }>;
  organizations?: Array<{ id: string; name: string; slug: string; roles: string[] }> | undefined;
  /** The user's latest events (absent without an audit log). */
  events?: AuthEvent[] | undefined;
}

/** How an impersonation stands for the request's session. */
export interface ImpersonationStatus {
  active: boolean;
  admin?: { id: string; name: string } | undefined;
  /** When it ends, ms since the epoch. */
  expires?: number | undefined;
}

/** The `act` claim of an impersonated session (RFC 8693): the admin, and when the impersonation ends (seconds). */
export interface ActClaim {
  sub: string;
  name: string;
  exp: number;
}

const impersonationKey = (jti: string): string => `impersonation:${jtiHash(jti)}`;
const notFound = (): AuthError => new AuthError('not_found', 'no such user');

function actOf(claims: Claims): ActClaim | undefined {
  const act = claims.act as Partial<ActClaim> | undefined;
  return act !== null && typeof act === 'object' && typeof act.sub === 'string' && typeof act.exp === 'number' ? { sub: act.sub, name: String(act.name ?? ''), exp: act.exp } : undefined;
}

/**
 * What admins do to users: list and read them, ban and unban (every session ends at once; every
 * login and refresh is refused while the ban lasts), end their sessions, and act as them for a
 * while (impersonation, marked in the token). Never to another admin, nor to oneself.
 */
export class AdminService {
  /**
   * @param ctx - the core's services.
   * @param options - the plugin's options.
   */
  constructor(
    private readonly ctx: PluginContext,
    private readonly options: ResolvedAdminOptions,
  ) {}

  /** Whether a token's user is an admin: `attrs.admin === true`, or the `isAdmin` option says so. Never an impersonated session. */
  isAdmin(user: User, claims?: Claims): boolean {
    if (claims?.act !== undefined) return false;
    return hasAdminAttr(user) || this.options.isAdmin?.(user) === true;
  }

  /** The same judgement as {@link AdminService.isAdmin}, made on the directory's record of the user's last login. */
  private isAdminRecord(record: UserRecord): boolean {
    return record.admin === true || this.isAdmin(this.userOf(record));
  }

  /** The user as its last login's token showed it (the directory keeps its role and attributes). */
  private userOf(record: UserRecord): User {
    return {
      id: record.id,
      name: record.name,
      picture: record.picture ?? '',
      ...(record.email ? { email: record.email } : {}),
      ...(record.role !== undefined ? { role: record.role } : {}),
      ...(record.attrs !== undefined ? { attrs: { ...record.attrs } } : {}),
    };
  }

  /** A page of the directory, each user with its count of live sessions. */
  async list(query: { query?: string | undefined; cursor?: string | undefined; limit?: number | undefined }): Promise<{ users: AdminUserView[]; next?: string | undefined }> {
    const page: UserList = await this.ctx.users.list(query);
    const users = await Promise.all(page.users.map(async (u) => ({ ...u, sessions: (await stateCall(() => this.ctx.sessions.list(u.id))).length })));
    return { users, next: page.next };
  }

  /** A page of the audit log (every user, or one). */
  audit(query: EventListOptions): Promise<{ events: AuthEvent[]; next?: string | undefined }> {
    return this.ctx.events.list(query);
  }

  /** One user in full; 404 when the directory does not know it. */
  async get(id: string): Promise<AdminUserDetail> {
    const record = await this.ctx.users.get(id);
    if (record === undefined) throw notFound();
    const [sessions, credentials] = await Promise.all([stateCall(() => this.ctx.sessions.list(id)), this.ctx.credentials.list(id)]);
    const orgs = this.ctx.service(ORGANIZATIONS_SERVICE);
    const organizations = orgs && (await orgs.mine(id)).map((o) => ({ id: o.id, name: o.name, slug: o.slug, roles: o.roles }));
    const events = await this.ctx.events.list({ userId: id, limit: 20 }).then(
      (page) => page.events,
      (err: unknown) => {
        if (err instanceof AuthError && err.status === 404) return undefined;
        throw err;
      },
    );
    return {
      ...record,
      sessions,
      credentials: credentials.map((c) => ({ id: c.id, kind: c.kind, label: c.label, created: c.created, lastUsed: c.lastUsed })),
      ...(organizations ? { organizations } : {}),
      ...(events ? { events } : {}),
    };
  }

  private async target(admin: User, id: string, action: string): Promise<UserRecord> {
    if (id === admin.id) throw new AuthError('forbidden', `an admin cannot ${action} themselves`);
    const record = await this.ctx.users.get(id);
    if (record === undefined) throw notFound();
    if (this.isAdminRecord(record)) throw new AuthError('forbidden', `an admin cannot ${action} another admin`);
    return record;
  }

  /**
   * Bans a user (until `until`, ms since the epoch, or until unbanned) and ends every session of it at
   * once. The ban is written first (the user directory), then the sessions end (the state store): once
   * the ban is saved it stands, and its event fires whatever follows. When ending the sessions fails,
   * `pending` says so: the ban refuses each of them at its next refresh (within `tokenDuration`),
   * and `POST .../sessions/revoke-all` ends them now.
   */
  async ban(admin: User, id: string, reason: string, until: number | undefined, client?: EventClient): Promise<{ user: UserRecord; revoked: number; pending?: ['sessions'] }> {
    await this.target(admin, id, 'ban');
    const user = await this.ctx.users.update(id, (current) => ({ ...current, status: 'banned', banReason: reason, bannedUntil: until }));
    if (user === undefined) throw notFound();
    const revoked = await stateCall(() => this.ctx.sessions.revokeAll(id)).catch((err: unknown) => {
      logTo(this.ctx.logger).warn('the ban of {user} was saved, but ending its sessions failed ({error}): they end at their next refresh', { user: id, error: errorName(err) });
      return undefined;
    });
    this.ctx.events.emit(
      {
        type: 'user.banned',
        userId: id,
        actor: { kind: 'admin', id: admin.id },
        data: { reason, ...(until ? { until } : {}), revoked: revoked ?? 0, ...(revoked === undefined ? { pending: ['sessions'] } : {}) },
      },
      client,
    );
    return revoked === undefined ? { user, revoked: 0, pending: ['sessions'] } : { user, revoked };
  }

  /** Lifts a ban. */
  async unban(admin: User, id: string, client?: EventClient): Promise<UserRecord> {
    const user = await this.ctx.users.update(id, ({ banReason: _reason, bannedUntil: _until, ...current }) => ({ ...current, status: 'active' }));
    if (user === undefined) throw notFound();
    this.ctx.events.emit({ type: 'user.unbanned', userId: id, actor: { kind: 'admin', id: admin.id }, data: {} }, client);
    return user;
  }

  /** Ends every session of a user. */
  async revokeAll(admin: User, id: string, client?: EventClient): Promise<number> {
    if ((await this.ctx.users.get(id)) === undefined) throw notFound();
    const revoked = await stateCall(() => this.ctx.sessions.revokeAll(id));
    if (revoked > 0) this.ctx.events.emit({ type: 'session.revoked', userId: id, actor: { kind: 'admin', id: admin.id }, data: { which: 'all', count: revoked } }, client);
    return revoked;
  }

  /**
   * Starts a session as user `id` for the admin of `adminClaims`: a new session whose token names
   * the admin in `act` (RFC 8693) and ends within `impersonationMaxAge`; the admin's own session
   * is kept aside for {@link AdminService.stop}. Never for an admin, a banned user or oneself.
   */
  async impersonate(res: ServerResponse, adminClaims: Claims, id: string, client: { userAgent: string | undefined; ip: string }): Promise<{ user: User; act: ActClaim }> {
    const admin = adminClaims.user as User;
    const record = await this.target(admin, id, 'impersonate');
    if (isBanned(record)) throw new AuthError('conflict', 'this user is banned: unban it first');
    const now = Math.floor(Date.now() / 1000);
    const act: ActClaim = { sub: admin.id, name: admin.name, exp: now + Math.floor(this.options.impersonationMaxAge / 1000) };
    // The token must name a provider that is on: the user's latest one, else the admin's.
    const latest = [...record.logins].reverse().find((l) => this.ctx.providers.has(l.provider))?.provider;
    const { exp: _exp, iat: _iat, nbf: _nbf, ...kept } = adminClaims;
    const made = await this.ctx.tokens.create(
      { aud: adminClaims.aud, user: this.userOf(record), auth_provider: { name: latest ?? adminClaims.auth_provider?.name ?? '' }, auth_time: now, jti: sessionJti(), act },
      act.exp,
    );
    await stateCall(async () => {
      await this.ctx.sessions.start(made.claims, { userAgent: client.userAgent, ip: client.ip });
      await this.ctx.stateStore.set(impersonationKey(made.claims.jti as string), kept, this.options.impersonationMaxAge);
    });
    this.ctx.tokens.send(res, made.token, made.claims);
    this.ctx.events.emit({ type: 'impersonation.started', userId: id, actor: { kind: 'admin', id: admin.id }, session: jtiHash(made.claims.jti as string), data: { until: act.exp * 1000 } }, client);
    return { user: made.claims.user as User, act };
  }

  /** How the request's session stands: an impersonation (by whom, until when) or not. */
  status(claims: Claims): ImpersonationStatus {
    const act = actOf(claims);
    return act ? { active: true, admin: { id: act.sub, name: act.name }, expires: act.exp * 1000 } : { active: false };
  }

  /**
   * Ends the impersonation of the request's session and gives the admin its own session back (a
   * new token of it); when that session ended meanwhile, the admin is logged out.
   */
  async stop(res: ServerResponse, claims: Claims, authenticator: PluginAuthenticator, client?: EventClient): Promise<User | undefined> {
    const act = actOf(claims);
    if (act === undefined || typeof claims.jti !== 'string') throw new AuthError('conflict', 'this session is not an impersonation');
    const kept = await stateCall(async () => {
      const saved = await this.ctx.stateStore.take<Claims>(impersonationKey(claims.jti as string));
      await this.ctx.sessions.revoke(claims.jti as string);
      return saved;
    });
    this.ctx.events.emit({ type: 'impersonation.stopped', userId: (claims.user as User).id, actor: { kind: 'admin', id: act.sub }, session: jtiHash(claims.jti), data: {} }, client);
    const adminJti = kept?.jti;
    const live = kept?.user !== undefined && typeof adminJti === 'string' && (await stateCall(() => this.ctx.sessions.status(adminJti, (kept.user as User).id))) === 'active';
    if (!kept || !live) {
      this.ctx.tokens.reset(res);
      return undefined;
    }
    await authenticator.reissue(res, kept, {});
    return kept.user;
  }
}
