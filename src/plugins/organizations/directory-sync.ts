import { randomBytes } from 'node:crypto';
import { AuthError } from '../../plugin-kit/helpers';
import type { PluginEvents, OrgAuthority } from '../../plugin-kit/plugin-api';
import type { ResolvedOrganizationOptions } from './org-options';
import type { MemberWrites } from './member-writes';
import type { OrgMember, OrgRecord, OrgStore } from './org-store';
import { OWNER } from './roles';

const refuse = (code: 'conflict', message: string, reason: 'limit_reached'): AuthError => new AuthError(code, message, { reason });

/** What the directory's changes need of the organizations service. */
export interface DirectorySyncDeps {
  store: OrgStore;
  options: ResolvedOrganizationOptions;
  events: PluginEvents;
  /** Every write of a member (the owner rule, announcements). */
  writes: MemberWrites;
  /** Applies a change to the organization (not its members) atomically and announces it. */
  change(orgId: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord>;
  /** Refuses (409 `limit_reached`) a user in the most organizations, or an organization with the most members. */
  joining(orgId: string, userId: string): Promise<void>;
  /** Whether the organization holds more than `maxMembers`, counted after a join wrote its record. */
  overFull(orgId: string): Promise<boolean>;
  /** Deletes a team: from the organization, then from its members. */
  dropTeam(orgId: string, teamId: string): Promise<void>;
  /** Deletes the invitations `inviterId` sent (all, or those its roles no longer allow); how many. */
  dropInvitationsBy(orgId: string, inviterId: string, all: boolean): Promise<number>;
}

/**
 * What an organization's own identity systems (SSO just in time, a SCIM directory) change in it:
 * memberships they grant and end, the teams of their groups, and roles when they own them. The
 * organizations service answers these for the other plugins ({@link OrgAuthority}). Each change
 * writes the one member's record (and the owner list, for an owner): never the other members.
 */
export class DirectorySync implements Pick<OrgAuthority, 'provision' | 'deprovision' | 'directoryTeam' | 'removeDirectoryTeam' | 'placeMember'> {
  /** @param deps - the store, the options, the events and the service's writes, limits and clean-ups. */
  constructor(private readonly deps: DirectorySyncDeps) {}

  /** @inheritdoc */
  async provision(orgId: string, userId: string, roles: readonly string[], source: string, options: { keepRoles?: boolean } = {}): Promise<'added' | 'changed' | 'unchanged'> {
    const known = roles.filter((r) => this.deps.options.roles.has(r) && r !== OWNER);
    const wanted = known.length > 0 ? [...new Set(known)] : ['member'];
    const org = await this.deps.store.get(orgId);
    if (org === undefined) throw new AuthError('not_found', 'organization not found');
    const actor = { kind: 'system' as const };
    if ((await this.deps.store.member(orgId, userId)) === undefined) {
      await this.deps.joining(orgId, userId);
      if (await this.deps.writes.add({ orgId, userId, roles: wanted, teams: [], joined: Date.now() })) {
        if (await this.deps.overFull(orgId)) {
          await this.deps.writes.remove(orgId, userId);
          throw refuse('conflict', `an organization may have at most ${String(this.deps.options.maxMembers)} members`, 'limit_reached');
        }
        this.deps.events.emit({ type: 'org.member.added', userId, actor, data: { org: orgId, roles: wanted, source } });
        return 'added';
      }
      // Another request added the member meanwhile: what follows judges its roles.
    }
    // The directory manages what it granted; an owner was made one in the app, and stays one.
    const owner = org.owners.includes(userId);
    const keep = (roles_: readonly string[]): boolean => options.keepRoles === true || owner || roles_.join() === wanted.join();
    const done = await this.deps.writes.change(orgId, userId, (member) => (keep(member.roles) ? undefined : { ...member, roles: wanted }));
    if (done === undefined || keep(done.before.roles)) return 'unchanged';
    this.deps.events.emit({ type: 'org.member.role_changed', userId, actor, data: { org: orgId, from: done.before.roles, to: wanted, source } });
    return 'changed';
  }

  /** @inheritdoc */
  async deprovision(orgId: string, userId: string, source: string): Promise<'removed' | 'kept_owner' | 'absent'> {
    let removed: OrgMember | undefined;
    try {
      removed = await this.deps.writes.remove(orgId, userId);
    } catch (err) {
      if (err instanceof AuthError && err.reason === 'last_owner') return 'kept_owner';
      throw err;
    }
    if (removed === undefined) return 'absent';
    await this.deps.dropInvitationsBy(orgId, userId, true);
    this.deps.events.emit({ type: 'org.member.removed', userId, actor: { kind: 'system' }, data: { org: orgId, left: false, source } });
    return 'removed';
  }

  /** @inheritdoc */
  async directoryTeam(orgId: string, teamId: string | undefined, name: string): Promise<string> {
    const made = { id: `team_${randomBytes(9).toString('base64url')}`, name };
    const result = { id: made.id };
    await this.deps.change(orgId, (current) => {
      const existing = teamId === undefined ? undefined : current.teams.find((t) => t.id === teamId);
      if (existing !== undefined) {
        result.id = existing.id;
        return existing.name === name ? undefined : { ...current, teams: current.teams.map((t) => (t.id === existing.id ? { ...t, name } : t)) };
      }
      result.id = made.id;
      if (current.teams.length >= this.deps.options.maxTeams) throw refuse('conflict', `an organization may have at most ${this.deps.options.maxTeams} teams`, 'limit_reached');
      return { ...current, teams: [...current.teams, made] };
    });
    return result.id;
  }

  /** @inheritdoc */
  removeDirectoryTeam(orgId: string, teamId: string): Promise<void> {
    return this.deps.dropTeam(orgId, teamId);
  }

  /** @inheritdoc */
  async placeMember(orgId: string, userId: string, placement: { managed: readonly string[]; wanted: readonly string[]; roles?: readonly string[] | undefined }, source: string): Promise<void> {
    const roles = placement.roles?.filter((r) => this.deps.options.roles.has(r) && r !== OWNER);
    const org = await this.deps.store.get(orgId);
    if (org === undefined) return;
    const known = new Set(org.teams.map((t) => t.id));
    const owner = org.owners.includes(userId);
    const done = await this.deps.writes.change(orgId, userId, (member) => {
      const teams = [...new Set([...member.teams.filter((t) => !placement.managed.includes(t)), ...placement.wanted.filter((t) => known.has(t))])];
      const nextRoles = roles === undefined || owner ? member.roles : roles.length > 0 ? [...new Set(roles)] : ['member'];
      if (teams.join() === member.teams.join() && nextRoles.join() === member.roles.join()) return undefined;
      return { ...member, teams, roles: nextRoles };
    });
    if (done !== undefined && done.before.roles.join() !== done.after.roles.join()) {
      await this.deps.dropInvitationsBy(orgId, userId, false);
      this.deps.events.emit({ type: 'org.member.role_changed', userId, actor: { kind: 'system' }, data: { org: orgId, from: done.before.roles, to: done.after.roles, source } });
    }
  }
}
