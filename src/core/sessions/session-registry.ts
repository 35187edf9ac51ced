import { createHash, createHmac, hash } from 'node:crypto';
import { randomId } from '../../internal/random';
import type { StateStore } from '../state/state-store';
import type { Claims } from '../token/claims';
import { summarizeUserAgent } from './user-agent';

/** One login session, as listed. */
export interface SessionInfo {
  /** The id the session is shown and revoked by: random, not its token's `jti` (the XSRF secret). */
  id: string;
  /** The user it belongs to. */
  userId: string;
  /** The provider that made the login. */
  provider: string;
  /** The token's audience. */
  aud: string;
  /** When the login happened, ms since the epoch. */
  created: number;
  /** When its token was last refreshed (or made), ms since the epoch. */
  refreshed: number;
  /** When it ends unless refreshed again, ms since the epoch. */
  expires: number;
  /** A short summary of the browser ("Firefox on Linux"). */
  userAgent: string;
  /** A keyed hash of the client IP at login: equal for equal IPs of one audience, the IP itself is not kept. */
  ipHash: string;
  /** Present when an admin acts as the user in this session (an impersonation): who. */
  impersonatedBy?: { id: string; name: string } | undefined;
  /** `true` for the session of the request that listed it (set by the routes). */
  current?: boolean;
}

/** The session registry as apps use it: `auth.sessions`. */
export interface Sessions {
  /** The user's live sessions, newest first. */
  list(userId: string): Promise<SessionInfo[]>;
  /** Revokes the session of a token id (`claims.jti`); `true` when it was a known session. A revoked token is never refreshed again. */
  revoke(jti: string): Promise<boolean>;
  /** Revokes every session of a user but the one of `except` (a `jti`), only those made by `provider` when given; returns how many. */
  revokeAll(userId: string, options?: { except?: string; provider?: string }): Promise<number>;
}

/** How a token's session stands: recorded and live, revoked, or never recorded here. */
export type SessionStatus = 'active' | 'revoked' | 'unknown';

/** The channel on which revocations are announced (the message is the hash of the `jti`). */
export const REVOKED_CHANNEL = 'session-revoked';

/**
 * The token ids of recorded sessions start with this, so a token whose record is gone (revoked
 * and then evicted from a bounded store, or forgotten by a store that restarted) is never taken
 * for a token made elsewhere (go-pkgz/auth's, `auth.tokens`'): it is over.
 */
export const SESSION_JTI_PREFIX = 's1.';

/** A fresh token id for a recorded session. */
export const sessionJti = (): string => `${SESSION_JTI_PREFIX}${randomId()}`;

/** The store key part for a token id: its hash, so the store never holds a usable `jti`. */
export const jtiHash = (jti: string): string => hash('sha256', jti, 'base64url');

/** The admin of an impersonation's `act` claim, as a session record shows it. */
function impersonatorOf(claims: Claims): Pick<SessionInfo, 'impersonatedBy'> {
  const act = claims.act as { sub?: unknown; name?: unknown } | undefined;
  return act !== null && typeof act === 'object' && typeof act.sub === 'string' ? { impersonatedBy: { id: act.sub, name: typeof act.name === 'string' ? act.name : '' } } : {};
}

const groupOf = (userId: string): string => `sessions:${createHash('sha256').update(userId).digest('base64url')}`;
const recordKey = (h: string): string => `session:${h}`;
const revokedKey = (h: string): string => `session-revoked:${h}`;
const refreshKey = (h: string, exp: number): string => `session-refresh:${h}:${exp}`;

/** What the registry needs to know of the token settings. */
export interface SessionRegistryOptions {
  tokenDuration: number;
  cookieDuration: number;
  maxSessionsPerUser: number;
  /** The signing secret of an audience: the key of the IP hash. */
  secretFor(aud: string): Promise<string>;
}

/**
 * Sessions in the state store. A session is the `jti` of a login token (kept across refreshes),
 * stored under its hash: a small record naming its user (to find it by token) and the session
 * itself as a member of its user's group (to list it). Revocation writes a marker that no later
 * write removes, so a refresh that races a revocation cannot bring the session back; it is
 * announced on the `revoked` channel.
 */
export class SessionRegistry implements Sessions {
  /** How long a session lives without a refresh: its token's life plus the refresh window. */
  private readonly lifetimeMs: number;
  /** Told of every revocation made by this process at once, before other processes hear of it. */
  private readonly revokedHere = new Set<(h: string) => void | Promise<void>>();

  /**
   * @param store - the state store.
   * @param options - durations, the bound per user and the IP-hash key.
   */
  constructor(
    private readonly store: StateStore,
    private readonly options: SessionRegistryOptions,
  ) {
    this.lifetimeMs = options.tokenDuration + options.cookieDuration;
  }

  /**
   * Calls `listener` with the hash of every `jti` this process revokes, as soon as it is revoked;
   * the revocation waits for a promise it returns (what ends with the session ends before the answer).
   */
  onRevoke(listener: (h: string) => void | Promise<void>): void {
    this.revokedHere.add(listener);
  }

  /** Records the session of a login's fresh token, then drops the user's oldest past the bound. */
  async start(claims: Claims, client: { userAgent: string | undefined; ip: string }): Promise<void> {
    // A claims updater may have taken the token id away: such a token is an unknown session.
    if (typeof claims.jti !== 'string' || claims.jti === '' || claims.user === undefined) return;
    const userId = claims.user.id;
    const aud = typeof claims.aud === 'string' ? claims.aud : '';
    const now = Date.now();
    const h = jtiHash(claims.jti);
    const record: SessionInfo = {
      id: randomId(16),
      userId,
      provider: claims.auth_provider?.name ?? '',
      aud,
      created: now,
      refreshed: now,
      expires: now + this.lifetimeMs,
      userAgent: summarizeUserAgent(client.userAgent),
      ipHash: createHmac('sha256', await this.options.secretFor(aud))
        .update(`session-ip:${client.ip}`)
        .digest('base64url')
        .slice(0, 16),
      ...impersonatorOf(claims),
    };
    // One round trip: the list read beside the writes may or may not see this session yet.
    const [, , listed] = await Promise.all([
      this.store.set(recordKey(h), userId, this.lifetimeMs),
      this.store.setMember(groupOf(userId), h, record, this.lifetimeMs),
      this.store.members<SessionInfo>(groupOf(userId)),
    ]);
    const all = listed.some((m) => m.member === h) ? listed : [...listed, { member: h, value: record }];
    const excess = all.length - this.options.maxSessionsPerUser;
    if (excess > 0) {
      const oldest = all.sort((a, b) => a.value.created - b.value.created).slice(0, excess);
      await Promise.all(oldest.map((m) => this.revokeHash(m.member, userId)));
    }
  }

  /** @inheritdoc */
  async list(userId: string): Promise<SessionInfo[]> {
    return (await this.listWithHashes(userId)).map((entry) => entry.session);
  }

  /** The sessions of a user with the hash of each one's `jti`, to mark the current one. */
  async listWithHashes(userId: string): Promise<Array<{ h: string; session: SessionInfo }>> {
    const all = await this.store.members<SessionInfo>(groupOf(userId));
    return all.map((m) => ({ h: m.member, session: m.value })).sort((a, b) => b.session.created - a.session.created);
  }

  /** @inheritdoc */
  async revoke(jti: string): Promise<boolean> {
    const h = jtiHash(jti);
    const userId = await this.store.get<string>(recordKey(h));
    await this.revokeHash(h, userId);
    return userId !== undefined;
  }

  /** @inheritdoc */
  async revokeAll(userId: string, options: { except?: string; provider?: string } = {}): Promise<number> {
    const keep = options.except === undefined ? undefined : jtiHash(options.except);
    const all = await this.store.members<SessionInfo>(groupOf(userId));
    const gone = all.filter((m) => m.member !== keep && (options.provider === undefined || m.value.provider === options.provider));
    await Promise.all(gone.map((m) => this.revokeHash(m.member, userId)));
    return gone.length;
  }

  /** Revokes a session of `userId` by its shown id; `undefined` when the user has no such session, else the hash of its `jti`. */
  async revokeById(userId: string, id: string): Promise<string | undefined> {
    const found = (await this.store.members<SessionInfo>(groupOf(userId))).find((m) => m.value.id === id);
    if (found === undefined) return undefined;
    await this.revokeHash(found.member, userId);
    return found.member;
  }

  /**
   * The marker first (it outlives any token the session could still refresh into, so a refresh
   * racing this call stays revoked), then the record and the list entry, then the announcement.
   */
  private async revokeHash(h: string, userId: string | undefined): Promise<void> {
    await this.store.set(revokedKey(h), 1, this.lifetimeMs + this.options.tokenDuration + 60_000);
    await Promise.all([...this.revokedHere].map((listener) => listener(h)));
    await Promise.all([this.store.delete(recordKey(h)), userId === undefined ? undefined : this.store.deleteMember(groupOf(userId), h)]);
    await this.store.publish?.(REVOKED_CHANNEL, h);
  }

  /**
   * How the session of a token stands, read from the store: a token of a recorded session
   * (a `jti` with the session prefix) whose record is gone counts as revoked.
   */
  async status(jti: string, userId: string): Promise<SessionStatus> {
    const h = jtiHash(jti);
    const [revoked, owner] = await Promise.all([this.store.get(revokedKey(h)), this.store.get<string>(recordKey(h))]);
    if (revoked !== undefined) return 'revoked';
    if (owner === userId) return 'active';
    return jti.startsWith(SESSION_JTI_PREFIX) ? 'revoked' : 'unknown';
  }

  /**
   * Claims the one refresh of the session's token that expires at `exp`: `won` for the one
   * caller in any instance that makes it; the others learn when it was claimed and whether the
   * refresh is done (then the new token is in the refresh cache, or gone from it).
   */
  async claimRefresh(h: string, exp: number): Promise<{ won: boolean; claimedAt: number; done: boolean }> {
    const key = refreshKey(h, exp);
    const now = Date.now();
    if (await this.store.setIfAbsent(key, { at: now, done: false }, this.lifetimeMs)) return { won: true, claimedAt: now, done: false };
    const claim = await this.store.get<{ at: number; done: boolean }>(key);
    return { won: false, claimedAt: claim?.at ?? 0, done: claim?.done ?? true };
  }

  /**
   * Claims a refresh whose claimant never finished (its claim, made at `staleAt`, is not done):
   * it failed or died before it handed out a token (a token is handed out only after the claim
   * says done), so exactly one caller in any instance may make the refresh instead.
   */
  async takeOverRefresh(h: string, exp: number, staleAt: number): Promise<{ won: boolean; claimedAt: number; done: boolean }> {
    const now = Date.now();
    if (!(await this.store.setIfAbsent(`${refreshKey(h, exp)}:after:${staleAt}`, 1, this.lifetimeMs))) return { won: false, claimedAt: now, done: false };
    await this.store.set(refreshKey(h, exp), { at: now, done: false }, this.lifetimeMs);
    return { won: true, claimedAt: now, done: false };
  }

  /** Whether the claimed refresh of the token that expires at `exp` is done. */
  async refreshDone(h: string, exp: number): Promise<boolean> {
    return (await this.store.get<{ done: boolean }>(refreshKey(h, exp)))?.done ?? true;
  }

  /**
   * Records a refresh of the session (its life starts again); `false`, with the session removed
   * again, when it was revoked in the meantime.
   */
  async refreshed(h: string, oldExp: number, claimedAt: number): Promise<boolean> {
    await this.store.set(refreshKey(h, oldExp), { at: claimedAt, done: true }, this.lifetimeMs);
    const userId = await this.store.get<string>(recordKey(h));
    const record = userId === undefined ? undefined : (await this.store.members<SessionInfo>(groupOf(userId))).find((m) => m.member === h)?.value;
    if (userId === undefined || record === undefined) return false;
    const now = Date.now();
    const next = { ...record, refreshed: now, expires: now + this.lifetimeMs };
    await Promise.all([this.store.set(recordKey(h), userId, this.lifetimeMs), this.store.setMember(groupOf(userId), h, next, this.lifetimeMs)]);
    if ((await this.store.get(revokedKey(h))) === undefined) return true;
    await this.revokeHash(h, userId);
    return false;
  }
}
