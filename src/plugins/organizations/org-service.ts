import { type Translations, AuthError, type AuthErrorReason, type Logger, canonicalEmail, describeSendFailure, renderTemplate, logTo } from '../../plugin-kit/helpers';
import type { OrgAuthority, PluginEvents, PluginUsers } from '../../plugin-kit/plugin-api';
import type { User } from '../../plugin-kit/sessions';
import { createHash, randomBytes } from 'node:crypto';
import type { Membership, MembershipCache } from './membership-cache';
import type { ResolvedOrganizationOptions } from './org-options';
import { type MemberPage, type OrgInvitation, type OrgMember, type OrgRecord, type OrgStore } from './org-store';
import { MemberWrites, recordRoles, rolesOf } from './member-writes';
import { ORG_PERMISSIONS, OWNER } from './roles';
import { DirectorySync } from './directory-sync';

/** What an invitation offers, shown before it is accepted (`POST /auth/orgs/invitations/preview`). */
export interface InvitationPreview {
  org: { name: string; slug: string };
  /** The address the invitation was sent to. */
  email: string;
  /** Whether that is the signed-in user's own address. */
  forYou: boolean;
  role: string;
  roles: string[];
  /** The inviter's name, when known. */
  invitedBy: string | null;
  expires: number;
}

/** Who asks, as the service sees it: the user, and how to demand a fresh login for the gravest changes. */
export interface OrgCaller {
  id: string;
  /** Throws 403 `step_up_required` unless the login is fresh (see `stepUpMaxAge`). */
  stepUp(): Promise<void>;
}

/** An organization as a member sees it. */
export interface OrgView {
  id: string;
  name: string;
  slug: string;
  created: number;
  /** The member's highest role (`owner`, `admin`, `member`, else the first of the app's). */
  role: string;
  roles: string[];
  /** What the roles allow (`['*']` for an owner). */
  permissions: string[];
  teams: string[];
}

/** A member as the organization's members see it, with the directory's name and picture. */
export interface MemberView extends Omit<OrgMember, 'orgId'> {
  name?: string | undefined;
  picture?: string | undefined;
}

/** Slugs that would read as route names. */
const RESERVED_SLUGS = new Set(['invitations', 'new', 'me']);
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;

/** The token's hash: an invitation's id. */
export const invitationId = (token: string): string => createHash('sha256').update(token).digest('hex');

const refuse = (code: 'forbidden' | 'conflict' | 'bad_request' | 'not_found', message: string, reason: AuthErrorReason): AuthError => new AuthError(code, message, { reason });
const notFound = (): AuthError => new AuthError('not_found', 'organization not found');

/** A slug made from a name: lower-case ASCII letters and digits joined by `-`. */
export function slugFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return base.length >= 2 ? base : `org-${randomBytes(3).toString('hex')}`;
}

/** Whether `slug` may name an organization. */
export function isSlug(slug: string): boolean {
  return SLUG.test(slug) && slug.length >= 2 && !RESERVED_SLUGS.has(slug);
}

/**
 * Organizations, their members, teams and invitations: every rule of who may do what lives here
 * (the routes parse, this decides). Non-members are told "not found", never "forbidden", so
 * slugs cannot be probed. Every change is announced, so memberships hold on every instance at once.
 */
export class OrgService implements OrgAuthority {
  /**
   * @param store - where organizations live.
   * @param cache - the middleware's view, told of every change.
   * @param options - the plugin's options.
   * @param deps - the app's URL (links), the user directory (names in member lists), the logger, the events (`org.member.*`), the translations (the invitation mail).
   */
  constructor(
    private readonly store: OrgStore,
    private readonly cache: MembershipCache,
    private readonly options: ResolvedOrganizationOptions,
    private readonly deps: { url: URL; users: PluginUsers; logger: Logger; events: PluginEvents; translations: Translations },
  ) {
    this.writes = new MemberWrites(store, cache);
    this.sync = new DirectorySync({
      store,
      options,
      events: deps.events,
      writes: this.writes,
      change: (orgId, change) => this.change(orgId, change),
      joining: (orgId, userId) => this.joining(orgId, userId),
      overFull: (orgId) => this.overFull(orgId),
      dropTeam: (orgId, teamId) => this.dropTeam(orgId, teamId),
      dropInvitationsBy: (orgId, inviterId, all) => this.dropInvitationsBy(orgId, inviterId, all),
    });
  }

  /** Every write of a member. */
  private readonly writes: MemberWrites;

  /** What the organization's directory and SSO change. */
  private readonly sync: DirectorySync;

  private get roles(): ResolvedOrganizationOptions['roles'] {
    return this.options.roles;
  }

  /** The highest of `roles`. */
  mainRole(roles: readonly string[]): string {
    for (const role of [OWNER, 'admin', 'member']) if (roles.includes(role)) return role;
    return roles[0] ?? 'member';
  }

  /** `member` with the roles it holds (`owner` from the organization's list). */
  private held(org: OrgRecord, member: OrgMember): OrgMember {
    return { ...member, roles: rolesOf(org, member) };
  }

  private view(org: OrgRecord, record: OrgMember): OrgView {
    const member = this.held(org, record);
    return {
      id: org.id,
      name: org.name,
      slug: org.slug,
      created: org.created,
      role: this.mainRole(member.roles),
      roles: [...member.roles],
      permissions: this.roles.permissionsOf(member.roles),
      teams: [...member.teams],
    };
  }

  /** The organization `ref` (an id or a slug) with the caller's membership; 404 when it is missing or the caller is no member. */
  async find(ref: string, userId: string): Promise<{ org: OrgRecord; me: OrgMember }> {
    const org = await this.orgOf(ref);
    const record = org === undefined ? undefined : await this.store.member(org.id, userId);
    if (org === undefined || record === undefined) throw notFound();
    return { org, me: this.held(org, record) };
  }

  private orgOf(ref: string): Promise<OrgRecord | undefined> {
    return ref.startsWith('org_') ? this.store.get(ref) : isSlug(ref) ? this.store.bySlug(ref) : Promise.resolve(undefined);
  }

  /**
   * The organization `ref` when the caller holds `permission` there, with the caller's roles:
   * 404 for a non-member, 403 `permission_required` without it (for other plugins' routes).
   */
  async authorize(ref: string, userId: string, permission: string): Promise<{ org: { id: string; slug: string; name: string }; roles: readonly string[] }> {
    const { org, me } = await this.find(ref, userId);
    this.demand(me, permission);
    return { org: { id: org.id, slug: org.slug, name: org.name }, roles: me.roles };
  }

  /** @inheritdoc */
  async lookup(ref: string): Promise<{ id: string; slug: string; name: string } | undefined> {
    const org = await this.orgOf(ref);
    return org === undefined ? undefined : { id: org.id, slug: org.slug, name: org.name };
  }

  /** @inheritdoc */
  provision(orgId: string, userId: string, roles: readonly string[], source: string, options?: { keepRoles?: boolean }): Promise<'added' | 'changed' | 'unchanged'> {
    return this.sync.provision(orgId, userId, roles, source, options);
  }

  /** @inheritdoc */
  deprovision(orgId: string, userId: string, source: string): Promise<'removed' | 'kept_owner' | 'absent'> {
    return this.sync.deprovision(orgId, userId, source);
  }

  /** @inheritdoc */
  directoryTeam(orgId: string, teamId: string | undefined, name: string): Promise<string> {
    return this.sync.directoryTeam(orgId, teamId, name);
  }

  /** @inheritdoc */
  removeDirectoryTeam(orgId: string, teamId: string): Promise<void> {
    return this.sync.removeDirectoryTeam(orgId, teamId);
  }

  /** @inheritdoc */
  placeMember(orgId: string, userId: string, placement: { managed: readonly string[]; wanted: readonly string[]; roles?: readonly string[] | undefined }, source: string): Promise<void> {
    return this.sync.placeMember(orgId, userId, placement, source);
  }

  /** How a key of organization `orgId` acts there: its roles while the organization exists, `null` once it is gone (synchronous when memory can tell). */
  keyMembership(orgId: string, key: { id: string; roles: readonly string[] }): Membership | null | Promise<Membership | null> {
    return this.cache.lookup(orgId, { key: key.id, roles: key.roles });
  }

  /** {@link OrgService.keyMembership} from memory only: `undefined` when memory cannot tell. */
  keyMembershipNow(orgId: string, key: { id: string; roles: readonly string[] }): Membership | null | undefined {
    return this.cache.peek(orgId, { key: key.id, roles: key.roles });
  }

  /** The ids of the user's organizations. */
  async idsOf(userId: string): Promise<string[]> {
    return (await this.store.ofUser(userId)).map((o) => o.id);
  }

  private demand(me: OrgMember, permission: string): void {
    if (!this.roles.allows(me.roles, permission)) throw refuse('forbidden', `your role in this organization does not allow ${permission}`, 'permission_required');
  }

  /** Applies `change` to the organization (not its members) atomically and announces it; the change sees the stored state and may throw. */
  private async change(orgId: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord> {
    const saved = await this.store.update(orgId, change);
    if (saved === undefined) throw notFound();
    await this.cache.changed(orgId);
    return saved;
  }

  /** Refuses (409 `limit_reached`) a user in the most organizations one may be in, or an organization with the most members it may have. */
  private async joining(orgId: string, userId: string): Promise<void> {
    if ((await this.store.ofUser(userId)).length >= this.options.maxOrgsPerUser) {
      throw refuse('conflict', `a user may be in at most ${this.options.maxOrgsPerUser} organizations`, 'limit_reached');
    }
    const most = this.options.maxMembers;
    if (most !== undefined && orgId !== '' && (await this.store.countMembers(orgId)) >= most) throw refuse('conflict', `an organization may have at most ${most} members`, 'limit_reached');
  }

  /**
   * Whether the organization holds more members than `maxMembers`, counted after a join wrote its
   * record: a join that finds it so takes its record back, so racing joins never pass the limit
   * (each counts every join written before its own count).
   */
  private async overFull(orgId: string): Promise<boolean> {
    const most = this.options.maxMembers;
    return most !== undefined && (await this.store.countMembers(orgId)) > most;
  }

  /** Creates an organization with `user` as its owner. */
  async create(user: User, input: { name: string; slug?: string | undefined }): Promise<OrgView> {
    if (this.options.allowCreate && !(await this.options.allowCreate(user))) throw refuse('forbidden', 'you may not create organizations', 'forbidden');
    await this.joining('', user.id);
    const now = Date.now();
    for (let attempt = 0; attempt < 3; attempt++) {
      const slug = input.slug ?? (attempt === 0 ? slugFrom(input.name) : `${slugFrom(input.name).slice(0, 40)}-${randomBytes(3).toString('hex')}`);
      const org: OrgRecord = { id: `org_${randomBytes(12).toString('base64url')}`, name: input.name, slug, created: now, owners: [user.id], teams: [] };
      // The record holds no role of its own: its owner is one by the organization's list.
      const owner: OrgMember = { orgId: org.id, userId: user.id, roles: [], teams: [], joined: now };
      // The member first: one whose organization never came to be is read by nobody.
      await this.store.addMember(owner);
      if (await this.store.add(org)) return this.view(org, owner);
      await this.store.removeMember(org.id, user.id);
      if (input.slug !== undefined) throw refuse('conflict', 'that slug is taken', 'slug_taken');
    }
    throw refuse('conflict', 'no free slug was found for that name; give one', 'slug_taken');
  }

  /** The caller's organizations, in the order joined. */
  async mine(userId: string): Promise<OrgView[]> {
    const orgs = await this.store.ofUser(userId);
    const members = await Promise.all(orgs.map((org) => this.store.member(org.id, userId)));
    return orgs.flatMap((org, i) => {
      const me = members[i];
      return me ? [this.view(org, me)] : [];
    });
  }

  /** One organization as the caller sees it. */
  async get(ref: string, userId: string): Promise<OrgView & { members: number; teamList: OrgRecord['teams'] }> {
    const { org, me } = await this.find(ref, userId);
    return { ...this.view(org, me), members: await this.store.countMembers(org.id), teamList: org.teams };
  }

  /** Renames it or changes its slug (`org:update`). */
  async update(ref: string, caller: OrgCaller, input: { name?: string | undefined; slug?: string | undefined }): Promise<OrgView> {
    const { org, me } = await this.find(ref, caller.id);
    this.demand(me, 'org:update');
    const saved = await this.change(org.id, (current) => ({ ...current, name: input.name ?? current.name, slug: input.slug ?? current.slug }));
    return this.view(saved, me);
  }

  /** Deletes it with its members and invitations (`org:delete`, owners only by default; a fresh login). */
  async delete(ref: string, caller: OrgCaller): Promise<void> {
    const { org, me } = await this.find(ref, caller.id);
    this.demand(me, 'org:delete');
    await caller.stepUp();
    // The caller's power as it is when the organization goes: a demotion before that refuses it.
    const record = await this.target(org, caller.id);
    const deleted = await this.store.delete(org.id, (stored) => this.demand({ ...record, roles: rolesOf(stored, record) }, 'org:delete'));
    if (!deleted) throw notFound();
    await this.cache.changed(org.id);
    this.deps.events.emit({ type: 'org.deleted', userId: caller.id, actor: { kind: 'user', id: caller.id }, data: { org: org.id } });
  }

  /** The member `userId` with the roles it holds; 404 when there is none. */
  private async target(org: OrgRecord, userId: string): Promise<OrgMember> {
    const member = await this.store.member(org.id, userId);
    if (member === undefined) throw new AuthError('not_found', 'no such member in this organization');
    return this.held(org, member);
  }

  /**
   * After a change the caller made with its power as read before: the caller is read again and,
   * when it lost that power meanwhile (removed, demoted), `undo` puts the change back and the
   * answer is 403, so a change is never made with a power that was gone when it was written.
   */
  private async confirmCaller(orgId: string, callerId: string, stillMay: (me: OrgMember) => boolean, undo: () => Promise<void>): Promise<void> {
    const org = await this.store.get(orgId);
    const record = org === undefined ? undefined : await this.store.member(orgId, callerId);
    if (org !== undefined && record !== undefined && stillMay(this.held(org, record))) return;
    await undo();
    throw refuse('forbidden', 'your role in this organization changed while this ran; nothing was changed', 'role_required');
  }

  /** A page of the members (in the order they joined), with names and pictures from the user directory. */
  async members(ref: string, userId: string, query: { cursor?: string | undefined; limit: number }): Promise<{ members: MemberView[]; next?: string | undefined }> {
    const { org } = await this.find(ref, userId);
    const page: MemberPage = await this.store.members(org.id, query);
    const members = await Promise.all(
      page.members.map(async (record) => {
        const { orgId: _org, ...m } = this.held(org, record);
        const known = await this.deps.users.get(m.userId).catch(() => undefined);
        return { ...m, name: known?.name, picture: known?.picture };
      }),
    );
    return { members, next: page.next };
  }

  /**
   * Changes a member's roles and teams (`member:update`; teams alone: `team:manage`). Nobody grants
   * or changes what they could not grant; giving or taking `owner` needs a fresh login.
   */
  async updateMember(ref: string, caller: OrgCaller, targetId: string, input: { roles?: string[] | undefined; teams?: string[] | undefined }): Promise<MemberView> {
    const { org, me } = await this.find(ref, caller.id);
    const before = await this.target(org, targetId);
    if (input.roles !== undefined) this.checkGrant(me, before.roles, input.roles);
    if (input.teams !== undefined) {
      this.demand(me, 'team:manage');
      const known = new Set(org.teams.map((t) => t.id));
      const unknown = input.teams.find((t) => !known.has(t));
      if (unknown !== undefined) throw new AuthError('bad_request', `no team ${unknown} in this organization`);
    }
    const ownerNow = before.roles.includes(OWNER);
    const ownerAfter = input.roles?.includes(OWNER) ?? ownerNow;
    // A stolen session must not leave behind a colleague with powers, nor take the owner's away.
    if (input.roles !== undefined && (ownerNow !== ownerAfter || this.gainsPowers(before.roles, input.roles))) await caller.stepUp();
    // Giving or taking `owner` is judged on the stored list: only an owner does it, and never to the last one.
    const callerOwns = (owners: readonly string[]): void => {
      if (!owners.includes(caller.id)) throw refuse('forbidden', 'only an owner gives or takes owner', 'role_required');
    };
    // The list first: a refusal there writes nothing, and a stop after it leaves a member with their
    // old other roles, which the same request again finishes.
    if (ownerNow !== ownerAfter) await this.writes.setOwner(org.id, targetId, ownerAfter, callerOwns);
    const done = await this.writes.change(org.id, targetId, (current) => ({
      ...current,
      roles: input.roles === undefined ? current.roles : recordRoles(input.roles),
      teams: input.teams ?? current.teams,
    }));
    if (done === undefined) throw new AuthError('not_found', 'no such member in this organization');
    await this.confirmCaller(
      org.id,
      caller.id,
      (mine) =>
        (input.roles === undefined || (this.roles.allows(mine.roles, 'member:update') && this.roles.mayGrant(mine.roles, input.roles))) &&
        (input.teams === undefined || this.roles.allows(mine.roles, 'team:manage')),
      async () => {
        await this.writes.change(org.id, targetId, (current) => ({ ...current, roles: done.before.roles, teams: done.before.teams }));
        if (ownerNow !== ownerAfter) await this.writes.setOwner(org.id, targetId, ownerNow).catch(() => undefined);
      },
    );
    const saved = (await this.store.get(org.id)) ?? org;
    const { orgId: _org, ...after } = this.held(saved, done.after);
    if (input.roles !== undefined) await this.dropInvitationsBy(org.id, targetId, false);
    if (input.roles !== undefined && after.roles.join() !== before.roles.join()) {
      this.deps.events.emit({ type: 'org.member.role_changed', userId: targetId, actor: { kind: 'user', id: caller.id }, data: { org: org.id, from: before.roles, to: after.roles } });
    }
    return after;
  }

  /** Whether going from `from` to `to` adds organization powers. */
  private gainsPowers(from: readonly string[], to: readonly string[]): boolean {
    return ORG_PERMISSIONS.some((p) => this.roles.allows(to, p) && !this.roles.allows(from, p));
  }

  private checkGrant(me: OrgMember, from: readonly string[], to: readonly string[]): void {
    this.demand(me, 'member:update');
    this.checkGrantable(me.roles, from);
    this.checkGrantable(me.roles, to);
  }

  /** `roles` exist and a member holding `mine` may grant them (see `RoleBook.mayGrant`): 400 for an unknown role, 403 `role_required` above their own. */
  checkGrantable(mine: readonly string[], roles: readonly string[]): void {
    const unknown = roles.find((r) => !this.roles.has(r));
    if (unknown !== undefined) throw new AuthError('bad_request', `no role ${unknown}; roles are ${this.roles.names().join(', ')}`);
    if (!this.roles.mayGrant(mine, roles)) throw refuse('forbidden', 'you cannot grant or change a role above your own', 'role_required');
  }

  /** Removes a member (`member:remove`, never one above the caller), or the caller leaves (own id). */
  async removeMember(ref: string, caller: OrgCaller, targetId: string): Promise<void> {
    const { org, me } = await this.find(ref, caller.id);
    const leaving = targetId === caller.id;
    const target = await this.target(org, targetId);
    if (!leaving) {
      this.demand(me, 'member:remove');
      if (!this.roles.mayGrant(me.roles, target.roles)) throw refuse('forbidden', 'you cannot remove a member above your own role', 'role_required');
      if (target.roles.includes(OWNER)) await caller.stepUp();
    }
    // Judged on the stored owner list, whatever was read before: only an owner removes one (even one made owner meanwhile), and never the last.
    const removed = await this.writes.remove(org.id, targetId, (owners) => {
      if (!leaving && owners.includes(targetId) && !owners.includes(caller.id)) throw refuse('forbidden', 'only an owner removes an owner', 'role_required');
    });
    if (removed === undefined) throw new AuthError('not_found', 'no such member in this organization');
    if (!leaving)
      await this.confirmCaller(
        org.id,
        caller.id,
        (mine) => this.roles.allows(mine.roles, 'member:remove') && this.roles.mayGrant(mine.roles, target.roles),
        async () => {
          await this.writes.add(removed);
          if (target.roles.includes(OWNER)) await this.writes.setOwner(org.id, targetId, true);
        },
      );
    await this.dropInvitationsBy(org.id, targetId, true);
    this.deps.events.emit({ type: 'org.member.removed', userId: targetId, actor: { kind: 'user', id: caller.id }, data: { org: org.id, left: leaving } });
  }

  /** Invites an address (`invitation:create`, only roles the caller may grant) and mails the one-shot link. */
  async invite(ref: string, caller: OrgCaller, input: { email: string; roles: string[] }, locale?: string): Promise<Omit<OrgInvitation, 'orgId'>> {
    const { org, me } = await this.find(ref, caller.id);
    this.demand(me, 'invitation:create');
    this.checkGrantable(me.roles, input.roles);
    // An invitation lets its holder in after the session that sent it is gone: like every grant of access, it needs a fresh login.
    await caller.stepUp();
    const sender = this.options.sender;
    if (sender.validateAddress && !sender.validateAddress(input.email)) throw new AuthError('bad_request', 'that address cannot receive mail');
    const now = Date.now();
    const pending = await this.store.invitations(org.id);
    for (const old of pending) if (old.expires <= now || old.email === input.email) await this.store.deleteInvitation(old.id);
    const live = pending.filter((inv) => inv.expires > now && inv.email !== input.email);
    if (live.length >= this.options.maxInvitations) throw refuse('conflict', `an organization may have at most ${this.options.maxInvitations} pending invitations`, 'limit_reached');
    const token = randomBytes(32).toString('base64url');
    const invitation: OrgInvitation = { id: invitationId(token), orgId: org.id, email: input.email, roles: input.roles, inviter: caller.id, created: now, expires: now + this.options.invitationTtl };
    await this.store.addInvitation(invitation);
    const link = this.options.invitationLink?.(token) ?? `${this.deps.url.href.replace(/\/+$/, '')}/#invitation=${token}`;
    const text = renderTemplate(
      this.options.invitationTemplate ?? this.deps.translations.text('mail.invitation', locale) ?? '',
      { Org: org.name, Role: this.mainRole(input.roles), Link: link, Site: this.deps.url.host, Expires: this.deps.translations.dateTime(invitation.expires, locale) },
      sender.contentType === 'text/html',
    );
    try {
      await sender.send(input.email, text);
    } catch (err) {
      await this.store.deleteInvitation(invitation.id);
      logTo(this.deps.logger).warn('invitation mail to an address of organization {org} not sent: {error}', { org: org.id, error: describeSendFailure(err) });
      throw new AuthError('bad_gateway', 'the invitation mail could not be sent; nothing was saved, try again');
    }
    const { orgId: _org, ...shown } = invitation;
    return shown;
  }

  /** The pending invitations (`invitation:create` or `invitation:cancel`). */
  async invitations(ref: string, userId: string): Promise<Array<Omit<OrgInvitation, 'orgId'>>> {
    const { org, me } = await this.find(ref, userId);
    if (!this.roles.allows(me.roles, 'invitation:create')) this.demand(me, 'invitation:cancel');
    const now = Date.now();
    return (await this.store.invitations(org.id)).filter((inv) => inv.expires > now).map(({ orgId: _org, ...shown }) => shown);
  }

  /** Cancels an invitation of this organization (`invitation:cancel`). */
  async cancel(ref: string, userId: string, id: string): Promise<void> {
    const { org, me } = await this.find(ref, userId);
    this.demand(me, 'invitation:cancel');
    const own = (await this.store.invitations(org.id)).some((inv) => inv.id === id);
    if (!own || !(await this.store.deleteInvitation(id))) throw new AuthError('not_found', 'no such invitation in this organization');
  }

  /**
   * Accepts an invitation for the logged-in user: the token came through the invited mailbox, and
   * is taken once (of racing accepts, in any instance, one wins). The user joins with the roles it names.
   */
  /**
   * What an invitation's token offers, before anyone accepts it: the organization, the roles, the
   * address it went to and whether that is `user`'s, who sent it. Its page shows this, so a link
   * someone else sent names what joining means (a token proves the mailbox only to its holder).
   */
  async previewInvitation(user: User, token: string): Promise<InvitationPreview> {
    const invalid = (): AuthError => refuse('bad_request', 'this invitation is not valid: it was used, cancelled or has expired', 'invitation_invalid');
    if (this.store.invitation === undefined) throw new AuthError('not_found', 'this organization store shows no invitation before it is accepted');
    const invitation = await this.store.invitation(invitationId(token));
    if (invitation === undefined || invitation.expires <= Date.now()) throw invalid();
    const [org, inviter] = await Promise.all([this.store.get(invitation.orgId), this.deps.users.get(invitation.inviter).catch(() => undefined)]);
    if (org === undefined) throw invalid();
    const mine = typeof user.email === 'string' && canonicalEmail(user.email) === invitation.email;
    return {
      org: { name: org.name, slug: org.slug },
      email: invitation.email,
      forYou: mine,
      role: this.mainRole(invitation.roles),
      roles: invitation.roles,
      invitedBy: inviter?.name ?? null,
      expires: invitation.expires,
    };
  }

  async accept(user: User, token: string): Promise<{ org: { id: string; name: string; slug: string }; role: string; roles: string[] }> {
    const invalid = (): AuthError => refuse('bad_request', 'this invitation is not valid: it was used, cancelled or has expired', 'invitation_invalid');
    const invitation = await this.store.takeInvitation(invitationId(token));
    if (invitation === undefined || invitation.expires <= Date.now() || (await this.deps.users.isBanned(invitation.inviter))) throw invalid();
    const joined = (org: OrgRecord, me: OrgMember): { org: { id: string; name: string; slug: string }; role: string; roles: string[] } => {
      this.deps.events.emit({ type: 'org.member.added', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: org.id, roles: me.roles, invitedBy: invitation.inviter } });
      return { org: { id: org.id, name: org.name, slug: org.slug }, role: this.mainRole(me.roles), roles: me.roles };
    };
    try {
      const org = await this.store.get(invitation.orgId);
      // The invitation carries its inviter's power as it is now, not as it was when it was sent.
      if (org === undefined || !(await this.mayStillInvite(org.id, invitation.inviter, invitation.roles))) throw invalid();
      if ((await this.store.member(org.id, user.id)) !== undefined) throw refuse('conflict', 'you are a member of this organization already', 'already_member');
      await this.joining(org.id, user.id);
      const known = new Set(this.roles.names());
      const granted = invitation.roles.filter((r) => known.has(r));
      const me: OrgMember = { orgId: org.id, userId: user.id, roles: granted.length > 0 ? granted : ['member'], teams: [], joined: Date.now(), invitedAs: invitation.email };
      if (!(await this.writes.add(me))) throw refuse('conflict', 'you are a member of this organization already', 'already_member');
      if (await this.overFull(org.id)) {
        await this.writes.remove(org.id, user.id);
        throw refuse('conflict', `an organization may have at most ${this.options.maxMembers} members`, 'limit_reached');
      }
      if (me.roles.includes(OWNER)) await this.writes.setOwner(org.id, user.id, true);
      return joined(org, me);
    } catch (err) {
      if (err instanceof AuthError && err.reason === 'invitation_invalid') throw invalid();
      // A refusal that is no fault of the invitation (a full organization), and a store that failed
      // (a 503 means nothing changed), leave it usable: it is put back before the answer.
      const unchanged = !(err instanceof AuthError) || err.status >= 500 || err.reason === 'limit_reached';
      // A store that failed may still have made the membership (its answer was lost): then the
      // invitation is spent and the acceptance stands; else it is put back for the retry.
      if (unchanged && err instanceof AuthError && err.reason === 'limit_reached') await this.store.addInvitation(invitation);
      else if (unchanged) {
        // Unreadable too: nobody can tell, so the invitation stays spent (a new one is asked for) rather than usable twice.
        const now = await Promise.all([this.store.get(invitation.orgId), this.store.member(invitation.orgId, user.id)]).catch(() => null);
        if (now === null) throw err;
        const [org, me] = now;
        if (org !== undefined && me !== undefined) return joined(org, this.held(org, me));
        await this.store.addInvitation(invitation);
      }
      throw err;
    }
  }

  /** Whether `inviterId` is a member of `orgId` who may still invite with `roles`. */
  private async mayStillInvite(orgId: string, inviterId: string, roles: readonly string[]): Promise<boolean> {
    const [org, record] = await Promise.all([this.store.get(orgId), this.store.member(orgId, inviterId)]);
    if (org === undefined || record === undefined) return false;
    const inviter = rolesOf(org, record);
    return this.roles.allows(inviter, 'invitation:create') && this.roles.mayGrant(inviter, roles);
  }

  /** Deletes the pending invitations of `orgId` that `inviterId` sent and may no longer send (all of them with `all`); how many. */
  private async dropInvitationsBy(orgId: string, inviterId: string, all: boolean): Promise<number> {
    let dropped = 0;
    for (const inv of await this.store.invitations(orgId)) {
      if (inv.inviter !== inviterId || (!all && (await this.mayStillInvite(orgId, inviterId, inv.roles)))) continue;
      if (await this.store.deleteInvitation(inv.id)) dropped++;
    }
    return dropped;
  }

  /**
   * The user's invitations end with its power to send them: on a reset of its credentials (a
   * stolen session may have sent them), a ban or a deletion, every one it sent; how many went.
   */
  async dropInvitationsOf(userId: string): Promise<number> {
    let dropped = 0;
    for (const org of await this.store.ofUser(userId)) dropped += await this.dropInvitationsBy(org.id, userId, true);
    return dropped;
  }

  /** Demands `permission` of the caller in `ref`, read now. */
  private async demandIn(ref: string, userId: string, permission: string): Promise<OrgRecord> {
    const { org, me } = await this.find(ref, userId);
    this.demand(me, permission);
    return org;
  }

  /** Adds a team (`team:manage`). */
  async addTeam(ref: string, userId: string, name: string): Promise<OrgRecord['teams'][number]> {
    const org = await this.demandIn(ref, userId, 'team:manage');
    const team = { id: `team_${randomBytes(9).toString('base64url')}`, name };
    await this.change(org.id, (current) => {
      if (current.teams.length >= this.options.maxTeams) throw refuse('conflict', `an organization may have at most ${this.options.maxTeams} teams`, 'limit_reached');
      return { ...current, teams: [...current.teams, team] };
    });
    return team;
  }

  /** Renames a team (`team:manage`); 404 for a team it does not have. */
  async renameTeam(ref: string, userId: string, teamId: string, name: string): Promise<void> {
    const org = await this.demandIn(ref, userId, 'team:manage');
    await this.change(org.id, (current) => {
      if (!current.teams.some((t) => t.id === teamId)) throw new AuthError('not_found', 'no such team in this organization');
      return { ...current, teams: current.teams.map((t) => (t.id === teamId ? { ...t, name } : t)) };
    });
  }

  /** Deletes a team; its members stay in the organization (`team:manage`); 404 for a team it does not have. */
  async deleteTeam(ref: string, userId: string, teamId: string): Promise<void> {
    const org = await this.demandIn(ref, userId, 'team:manage');
    if (!org.teams.some((t) => t.id === teamId)) throw new AuthError('not_found', 'no such team in this organization');
    await this.dropTeam(org.id, teamId);
  }

  /**
   * Deletes team `teamId`: the organization forgets it first (so it is no team of anyone's), then
   * each of its members' records loses it, page by page; a stop half-way is finished by the same call.
   */
  private async dropTeam(orgId: string, teamId: string): Promise<void> {
    await this.change(orgId, (current) => (current.teams.some((t) => t.id === teamId) ? { ...current, teams: current.teams.filter((t) => t.id !== teamId) } : undefined));
    for (;;) {
      const page = await this.store.members(orgId, { team: teamId, limit: 500 });
      if (page.members.length === 0) return;
      for (const m of page.members) await this.writes.change(orgId, m.userId, (current) => ({ ...current, teams: current.teams.filter((t) => t !== teamId) }));
    }
  }

  /**
   * The user is gone: out of every organization. One that has nobody left is deleted; one left
   * without an owner gets one (its longest-standing admin, else member), so no organization is orphaned.
   */
  async userDeleted(userId: string): Promise<void> {
    await this.dropInvitationsOf(userId);
    for (const org of await this.store.ofUser(userId)) {
      const others = (await this.store.members(org.id, { limit: 2 })).members.filter((m) => m.userId !== userId);
      if (others.length === 0) {
        await this.store.delete(org.id);
        await this.cache.changed(org.id);
        continue;
      }
      // Only owners who are members count: a name left by a race owns nothing.
      if (org.owners.includes(userId) && (await this.writes.ownersBesides(org, userId)).length === 0) {
        const admin = (await this.store.members(org.id, { role: 'admin', limit: 2 })).members.find((m) => m.userId !== userId);
        const heir = admin ?? others[0];
        if (heir !== undefined) await this.writes.setOwner(org.id, heir.userId, true);
      }
      await this.writes.remove(org.id, userId);
    }
  }

  /** The user's id changed: its memberships follow (joined with a membership the new id has already). */
  async userIdChanged(from: string, to: string): Promise<void> {
    for (const org of await this.store.ofUser(from)) {
      const old = await this.store.member(org.id, from);
      if (old === undefined) continue;
      // The new id gets its place first (and the old one's ownership), then the old one goes.
      const merged = await this.writes.change(org.id, to, (existing) => ({
        ...existing,
        roles: [...new Set([...existing.roles, ...old.roles])],
        teams: [...new Set([...existing.teams, ...old.teams])],
        joined: Math.min(existing.joined, old.joined),
      }));
      if (merged === undefined) await this.writes.add({ ...old, userId: to });
      if (org.owners.includes(from)) await this.writes.setOwner(org.id, to, true);
      await this.writes.remove(org.id, from);
    }
  }
}
