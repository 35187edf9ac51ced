import { randomBytes } from 'node:crypto';
import { AuthError } from '../../core/errors';
import type { PluginEvents } from '../../plugin-api/core-api';
import type { OrgAuthority } from '../../plugin-api/org-keys';
import type { ResolvedOrganizationOptions } from './org-options';
import type { OrgRecord, OrgStore } from './org-store';
import { OWNER } from './roles';

/** What the directory's changes need of the organizations service. */
export interface DirectorySyncDeps {
  store: OrgStore;
  options: ResolvedOrganizationOptions;
  events: PluginEvents;
  /** Applies a change to the organization atomically and announces it. */
  change(orgId: string, change: (org: OrgRecord) => OrgRecord | undefined): Promise<OrgRecord>;
  /** Refuses (409) a user already in the most organizations one may be in. */
  countOrgs(userId: string): Promise<void>;
  /** Deletes the invitations `inviterId` sent (all, or those its roles no longer allow); how many. */
  dropInvitationsBy(org: OrgRecord, inviterId: string, all: boolean): Promise<number>;
}

const refuse = (code: 'conflict', message: string, reason: 'limit_reached'): AuthError => new AuthError(code, message, { reason });

/**
 * What an organization's own identity systems (SSO just in time, a SCIM directory) change in it:
 * memberships they grant and end, the teams of their groups, and roles when they own them. The
 * organizations service answers these for the other plugins ({@link OrgAuthority}).
 */
export class DirectorySync implements Pick<OrgAuthority, 'provision' | 'deprovision' | 'directoryTeam' | 'removeDirectoryTeam' | 'placeMember'> {
  /** @param deps - the store, the options, the events and the service's change, limits and invitation clean-up. */
  constructor(private readonly deps: DirectorySyncDeps) {}

  /** @inheritdoc */
  async provision(orgId: string, userId: string, roles: readonly string[], source: string, options: { keepRoles?: boolean } = {}): Promise<'added' | 'changed' | 'unchanged'> {
    const known = roles.filter((r) => this.deps.options.roles.has(r) && r !== OWNER);
    const wanted = known.length > 0 ? [...new Set(known)] : ['member'];
    const before = (await this.deps.store.get(orgId))?.members.find((m) => m.userId === userId);
    if (before === undefined) await this.deps.countOrgs(userId);
    const result: { outcome: 'added' | 'changed' | 'unchanged' } = { outcome: 'unchanged' };
    const saved = await this.deps.change(orgId, (current) => {
      const member = current.members.find((m) => m.userId === userId);
      if (member === undefined) {
        if (current.members.length >= this.deps.options.maxMembers) throw refuse('conflict', `an organization may have at most ${this.deps.options.maxMembers} members`, 'limit_reached');
        result.outcome = 'added';
        return { ...current, members: [...current.members, { userId, roles: wanted, teams: [], joined: Date.now() }] };
      }
      // The directory manages what it granted; an owner was made one in the app, and stays one.
      if (options.keepRoles === true || member.roles.includes(OWNER) || member.roles.join() === wanted.join()) return undefined;
      result.outcome = 'changed';
      return { ...current, members: current.members.map((m) => (m.userId === userId ? { ...m, roles: wanted } : m)) };
    });
    const { outcome } = result;
    const actor = { kind: 'system' as const };
    if (outcome === 'added') this.deps.events.emit({ type: 'org.member.added', userId, actor, data: { org: saved.id, roles: wanted, source } });
    if (outcome === 'changed') this.deps.events.emit({ type: 'org.member.role_changed', userId, actor, data: { org: saved.id, from: before?.roles ?? [], to: wanted, source } });
    return outcome;
  }

  /** @inheritdoc */
  async deprovision(orgId: string, userId: string, source: string): Promise<'removed' | 'kept_owner' | 'absent'> {
    const result: { outcome: 'removed' | 'kept_owner' | 'absent' } = { outcome: 'absent' };
    const saved = await this.deps.change(orgId, (current) => {
      const member = current.members.find((m) => m.userId === userId);
      if (member === undefined) return ((result.outcome = 'absent'), undefined);
      const members = current.members.filter((m) => m.userId !== userId);
      if (!members.some((m) => m.roles.includes(OWNER))) return ((result.outcome = 'kept_owner'), undefined);
      result.outcome = 'removed';
      return { ...current, members };
    });
    if (result.outcome === 'removed') {
      await this.deps.dropInvitationsBy(saved, userId, true);
      this.deps.events.emit({ type: 'org.member.removed', userId, actor: { kind: 'system' }, data: { org: saved.id, left: false, source } });
    }
    return result.outcome;
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
  async removeDirectoryTeam(orgId: string, teamId: string): Promise<void> {
    await this.deps.change(orgId, (current) =>
      current.teams.some((t) => t.id === teamId)
        ? { ...current, teams: current.teams.filter((t) => t.id !== teamId), members: current.members.map((m) => ({ ...m, teams: m.teams.filter((t) => t !== teamId) })) }
        : undefined,
    );
  }

  /** @inheritdoc */
  async placeMember(orgId: string, userId: string, placement: { managed: readonly string[]; wanted: readonly string[]; roles?: readonly string[] | undefined }, source: string): Promise<void> {
    const roles = placement.roles?.filter((r) => this.deps.options.roles.has(r) && r !== OWNER);
    const seen: { from?: string[]; to?: string[] } = {};
    const saved = await this.deps.change(orgId, (current) => {
      const member = current.members.find((m) => m.userId === userId);
      if (member === undefined) return undefined;
      const known = new Set(current.teams.map((t) => t.id));
      const teams = [...new Set([...member.teams.filter((t) => !placement.managed.includes(t)), ...placement.wanted.filter((t) => known.has(t))])];
      const nextRoles = roles === undefined || member.roles.includes(OWNER) ? member.roles : roles.length > 0 ? [...new Set(roles)] : ['member'];
      if (teams.join() === member.teams.join() && nextRoles.join() === member.roles.join()) return undefined;
      seen.from = member.roles;
      seen.to = nextRoles;
      return { ...current, members: current.members.map((m) => (m.userId === userId ? { ...m, teams, roles: nextRoles } : m)) };
    });
    if (seen.from !== undefined && seen.to !== undefined && seen.from.join() !== seen.to.join()) {
      await this.deps.dropInvitationsBy(saved, userId, false);
      this.deps.events.emit({ type: 'org.member.role_changed', userId, actor: { kind: 'system' }, data: { org: saved.id, from: seen.from, to: seen.to, source } });
    }
  }
}
