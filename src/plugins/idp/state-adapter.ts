import type { StateStore } from '../../plugin-kit/state';

/** What oidc-provider stores: a model's payload (tokens, codes, sessions, grants, interactions). */
type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number; accountId?: string; loginTs?: number };

/** The adapter interface oidc-provider calls, one instance per model. */
export interface OidcAdapter {
  upsert(id: string, payload: Payload, expiresIn: number | undefined): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Models whose records belong to a grant (revoked with it). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/** Models used once: consuming them is atomic across instances. */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PushedAuthorizationRequest']);
/** Records without an expiry (oidc-provider gives none) live this long at most. */
const LONGEST_MS = 400 * 86_400_000;
const PREFIX = 'idp:';
/** How long a claimed replay id is kept before oidc-provider's save gives it its own expiry: longer than any proof is accepted. */
const REPLAY_CLAIM_MS = 10 * 60_000;

/** What a lookup key may be: ids from requests are looked up only when they could have been issued (printable ASCII). */
const LOOKUP = /^[\x21-\x7e]{1,512}$/;

const ttlOf = (expiresIn: number | undefined): number => (typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn * 1000 : LONGEST_MS);

/**
 * oidc-provider's storage on authgate's state store, so every instance sharing the store serves one
 * issuer: a code issued by one is redeemed on another. Secondary indexes (user codes, session uids)
 * are keys of their own, a grant's records a group. `consume` is atomic (`setIfAbsent`): of two
 * instances redeeming one code or refresh token at once, one wins, and the other is treated as a
 * reuse (the grant is revoked, `invalid_grant`), as oidc-provider treats a sequential reuse.
 */
export class StateAdapter implements OidcAdapter {
  /**
   * @param model - the oidc-provider model this instance stores.
   * @param state - the state store.
   * @param reused - the error for a lost race (oidc-provider's `InvalidGrant`).
   * @param mayHold - whether a user may still hold grants (not banned, not deleted): read at every
   * lookup of a grant, so a ban stops its tokens at once on every instance, whatever else failed.
   */
  constructor(
    private readonly model: string,
    private readonly state: StateStore,
    private readonly reused: (message: string) => Error,
    private readonly mayHold?: (accountId: string) => Promise<boolean>,
  ) {}

  private key(id: string): string {
    return `${PREFIX}${this.model}:${id}`;
  }

  private consumedKey(id: string): string {
    return `${PREFIX}${this.model}:consumed:${id}`;
  }

  /** @inheritdoc */
  async upsert(id: string, payload: Payload, expiresIn: number | undefined): Promise<void> {
    const ttl = ttlOf(expiresIn);
    if (GRANTABLE.has(this.model) && typeof payload.grantId === 'string') await this.state.setMember(`${PREFIX}grant:${payload.grantId}`, this.key(id), 1, ttl);
    if (typeof payload.userCode === 'string') await this.state.set(`${PREFIX}${this.model}:user-code:${payload.userCode}`, id, ttl);
    if (this.model === 'Session' && typeof payload.uid === 'string') await this.state.set(`${PREFIX}${this.model}:uid:${payload.uid}`, id, ttl);
    if (this.model === 'Grant' && typeof payload.accountId === 'string') await this.state.setMember(`${PREFIX}grants-of:${payload.accountId}`, id, payload.clientId ?? '', ttl);
    if (this.model === 'Grant' && typeof payload.clientId === 'string') await this.state.setMember(`${PREFIX}grants-of-client:${payload.clientId}`, id, payload.accountId ?? '', ttl);
    if (this.model === 'Session' && typeof payload.accountId === 'string') await this.state.setMember(`${PREFIX}sessions-of:${payload.accountId}`, id, payload.loginTs ?? 0, ttl);
    await this.state.set(this.key(id), payload, ttl);
  }

  /** @inheritdoc */
  async find(id: string): Promise<Payload | undefined> {
    if (typeof id !== 'string' || !LOOKUP.test(id)) return undefined;
    // oidc-provider's replay check (a DPoP proof's or a client assertion's jti) looks, then saves: two
    // instances could both find nothing. Here the look claims the id, so of two one finds it taken.
    if (this.model === 'ReplayDetection') return (await this.state.setIfAbsent(this.key(id), { claimed: true }, REPLAY_CLAIM_MS)) ? undefined : { claimed: true };
    const payload = await this.state.get<Payload>(this.key(id));
    if (payload !== undefined && this.mayHold !== undefined && typeof payload.accountId === 'string' && !(await this.mayHold(payload.accountId))) return undefined;
    if (payload === undefined || !CONSUMABLE.has(this.model)) return payload;
    const consumed = await this.state.get<number>(this.consumedKey(id));
    return consumed === undefined ? payload : { ...payload, consumed };
  }

  /** @inheritdoc */
  async findByUserCode(userCode: string): Promise<Payload | undefined> {
    if (typeof userCode !== 'string' || !LOOKUP.test(userCode)) return undefined;
    const id = await this.state.get<string>(`${PREFIX}${this.model}:user-code:${userCode}`);
    return id === undefined ? undefined : this.find(id);
  }

  /** @inheritdoc */
  async findByUid(uid: string): Promise<Payload | undefined> {
    if (typeof uid !== 'string' || !LOOKUP.test(uid)) return undefined;
    const id = await this.state.get<string>(`${PREFIX}${this.model}:uid:${uid}`);
    return id === undefined ? undefined : this.find(id);
  }

  /** @inheritdoc */
  async consume(id: string): Promise<void> {
    const payload = await this.state.get<Payload>(this.key(id));
    if (await this.state.setIfAbsent(this.consumedKey(id), Math.floor(Date.now() / 1000), LONGEST_MS)) return;
    if (typeof payload?.grantId === 'string') {
      // The grant goes too: a token the winner saves after this sweep then fails with it.
      await this.revokeByGrantId(payload.grantId);
      await new StateAdapter('Grant', this.state, this.reused).destroy(payload.grantId);
    }
    throw this.reused(`${this.model === 'RefreshToken' ? 'refresh token' : 'code'} already used`);
  }

  /** @inheritdoc */
  async destroy(id: string): Promise<void> {
    const payload = await this.state.take<Payload>(this.key(id));
    if (payload === undefined) return;
    if (typeof payload.userCode === 'string') await this.state.delete(`${PREFIX}${this.model}:user-code:${payload.userCode}`);
    if (this.model === 'Session' && typeof payload.uid === 'string') await this.state.delete(`${PREFIX}${this.model}:uid:${payload.uid}`);
    if (typeof payload.grantId === 'string') await this.state.deleteMember(`${PREFIX}grant:${payload.grantId}`, this.key(id));
    if (this.model === 'Grant' && typeof payload.accountId === 'string') await this.state.deleteMember(`${PREFIX}grants-of:${payload.accountId}`, id);
    if (this.model === 'Grant' && typeof payload.clientId === 'string') await this.state.deleteMember(`${PREFIX}grants-of-client:${payload.clientId}`, id);
    if (this.model === 'Session' && typeof payload.accountId === 'string') await this.state.deleteMember(`${PREFIX}sessions-of:${payload.accountId}`, id);
  }

  /** @inheritdoc */
  async revokeByGrantId(grantId: string): Promise<void> {
    const group = `${PREFIX}grant:${grantId}`;
    for (const { member } of await this.state.members(group)) {
      await this.state.delete(member);
      await this.state.deleteMember(group, member);
    }
  }
}

/** The identity provider sessions of a user, by session id, with the login time (seconds) each began with. */
export async function sessionsOf(state: StateStore, accountId: string): Promise<Array<{ id: string; loginTs: number }>> {
  return (await state.members<number>(`${PREFIX}sessions-of:${accountId}`)).map((m) => ({ id: m.member, loginTs: m.value }));
}
