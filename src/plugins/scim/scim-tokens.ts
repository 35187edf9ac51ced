import { AuthError, randomId, nameField } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';
import type { PluginEvents, PluginUsers, OrgAuthority } from '../../plugin-kit/plugin-api';
import { MAX_TOKENS_PER_ORG, type ScimRepository } from './scim-repository';
import { tokenId, type ScimToken } from './token-schema';

/** Managing an organization's SCIM tokens needs this permission there (owners and admins hold it). */
export const SCIM_PERMISSION = 'org:update';

/** A token as the organization's admins see it (never the token itself after its creation). */
export interface ScimTokenView {
  id: string;
  name: string;
  /** Its first characters, to tell it apart. */
  prefix: string;
  created: number;
}

/** Where a SCIM request writes, and with whose power: the organization of its token and the member who made the token. */
export interface ScimScope {
  orgId: string;
  maker: string;
}

const view = (t: ScimToken): ScimTokenView => ({ id: t.id, name: t.name, prefix: t.prefix, created: t.created });

/**
 * An organization's SCIM tokens: made by its admins (a fresh login), shown once, kept as hashes,
 * several at once for a rotation, revocable; each decides the organization its directory writes.
 */
export class ScimTokens {
  /**
   * Made by the plugin.
   * @internal
   */
  constructor(
    private readonly repo: ScimRepository,
    private readonly orgs: OrgAuthority,
    private readonly events: PluginEvents,
    private readonly users: Pick<PluginUsers, 'isBanned'>,
  ) {}

  private async orgOf(ref: string, user: User): Promise<string> {
    return (await this.orgs.authorize(ref, user.id, SCIM_PERMISSION)).org.id;
  }

  /** The organization's tokens. */
  async list(ref: string, user: User): Promise<ScimTokenView[]> {
    return (await this.repo.ofOrg(await this.orgOf(ref, user))).map(view);
  }

  /** Makes a token (`scim_<random>`), returned this once. */
  async create(ref: string, user: User, name: unknown, client: { ip?: string; userAgent?: string | undefined }): Promise<ScimTokenView & { token: string }> {
    const orgId = await this.orgOf(ref, user);
    const label = name === undefined ? 'SCIM' : nameField(name, 'name');
    if ((await this.repo.ofOrg(orgId)).length >= MAX_TOKENS_PER_ORG)
      throw new AuthError('conflict', `an organization holds at most ${MAX_TOKENS_PER_ORG} SCIM tokens: revoke one first`, { reason: 'limit_reached' });
    const token = `scim_${randomId(32)}`;
    const made: ScimToken = { id: tokenId(token), orgId, name: label, prefix: token.slice(0, 12), created: Date.now(), createdBy: user.id };
    await this.repo.add(made);
    this.events.emit({ type: 'scim.token.created', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: orgId, token: made.id, name: label } }, client);
    return { ...view(made), token };
  }

  /** Revokes one of the organization's tokens: its directory's next request is refused. */
  async revoke(ref: string, user: User, id: string, client: { ip?: string; userAgent?: string | undefined }): Promise<void> {
    const orgId = await this.orgOf(ref, user);
    const found = await this.repo.get(id);
    if (found === undefined || found.orgId !== orgId || !(await this.repo.delete(id))) throw new AuthError('not_found', 'no such SCIM token in this organization');
    this.events.emit({ type: 'scim.token.revoked', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: orgId, token: id, reason: 'revoked' } }, client);
  }

  /** The organization a presented token writes for; `undefined` for an unknown or revoked one. */
  async organizationOf(token: string): Promise<string | undefined> {
    return (await this.scopeOf(token))?.orgId;
  }

  /**
   * The organization a token writes and the member who made it (whose power it has); `undefined`
   * for an unknown token, and for one whose maker no longer holds the power to make it (checked on
   * every use, so a demotion or a ban holds even before the token is revoked, and when the revocation failed).
   */
  async scopeOf(token: string): Promise<ScimScope | undefined> {
    if (!/^scim_[0-9a-f]{64}$/.test(token)) return undefined;
    const found = await this.repo.get(tokenId(token));
    if (found === undefined) return undefined;
    const empowered = await this.orgs.authorize(found.orgId, found.createdBy, SCIM_PERMISSION).then(
      () => true,
      (err: unknown) => {
        if (err instanceof AuthError && err.status < 500) return false;
        throw err;
      },
    );
    if (!empowered || (await this.users.isBanned(found.createdBy))) return undefined;
    return { orgId: found.orgId, maker: found.createdBy };
  }

  /** The author's power is gone (a reset, a ban, their removal from `orgId` or their demotion there): their tokens are revoked; how many. */
  async endTokensBy(userId: string, reason: 'credentials_reset' | 'banned' | 'removed' | 'demoted', orgId?: string): Promise<number> {
    let ended = 0;
    for (const t of await this.repo.byAuthor(userId)) {
      if (orgId !== undefined && t.orgId !== orgId) continue;
      if (!(await this.repo.delete(t.id))) continue;
      ended++;
      this.events.emit({ type: 'scim.token.revoked', userId, actor: { kind: 'system' }, data: { org: t.orgId, token: t.id, reason } });
    }
    return ended;
  }

  /** An organization is gone: its tokens go. */
  async orgDeleted(orgId: string): Promise<void> {
    for (const t of await this.repo.ofOrg(orgId)) await this.repo.delete(t.id);
  }
}
