import { randomUUID } from 'node:crypto';
import { type PluginEvents, grantableBy, mayActOn, rolesIn, type OrgAuthority } from '../../plugin-kit/plugin-api';
import { ownValue } from '../../plugin-kit/helpers';
import { readGroupFields, groupAttributes, type ScimGroupFields } from './group-resource';
import type { ScimGroup, ScimSettings } from './group-schema';
import type { ScimRepository } from './scim-repository';
import { ScimError } from './scim-errors';
import { checkVersion, filterMeta } from './versions';
import { equalityOn, matches, parseFilter } from './scim-filter';
import { applyPatch, type PatchOperation } from './scim-patch';
import { SCIM_SOURCE, type ScimPage } from './scim-users';
import type { ScimUser } from './user-schema';

const CASE_EXACT = new Set(['id', 'externalid', 'members.value']);
const GROUP_LISTS = new Set(['members']);
const GROUP_ATTRIBUTES: Record<string, string> = { display_name: 'displayName', external_id: 'externalId' };
const attributeOf = (index: string): string => GROUP_ATTRIBUTES[index] ?? index;
const notFound = (): ScimError => new ScimError(404, 'no such group in this organization');

/** What the SCIM groups need. */
export interface ScimGroupDeps {
  repo: ScimRepository;
  orgs: OrgAuthority;
  events: PluginEvents;
}

/**
 * An organization's directory groups: each is a team of the organization, its members the
 * group's users; an organization may map group names to roles (`PUT /orgs/:org/scim/settings`),
 * and then the directory decides its users' roles too.
 */
export class ScimGroups {
  /**
   * @param deps - the SCIM store, the organizations' authority and the events.
   * @internal
   */
  constructor(private readonly deps: ScimGroupDeps) {}

  /** A group of the organization; a 404 for another organization's id. */
  async get(orgId: string, id: string): Promise<ScimGroup> {
    const group = await this.deps.repo.groups.get(id);
    if (group === undefined || group.orgId !== orgId) throw notFound();
    return group;
  }

  /** The groups of each user of the organization (by SCIM id), as a user resource lists them. */
  async membership(orgId: string): Promise<Map<string, Array<{ value: string; display: string }>>> {
    const of = new Map<string, Array<{ value: string; display: string }>>();
    for (const group of await this.ofOrg(orgId)) for (const member of group.members) of.set(member, [...(of.get(member) ?? []), { value: group.id, display: group.displayName }]);
    return of;
  }

  /** Every group of the organization (an organization has at most its `maxTeams`). */
  ofOrg(orgId: string): Promise<ScimGroup[]> {
    return this.deps.repo.groups.ofOrg(orgId);
  }

  /** The groups matching `filter`, `count` from `startIndex`. */
  async list(orgId: string, query: { filter?: string | undefined; startIndex: number; count: number }): Promise<ScimPage<ScimGroup>> {
    const filter = query.filter === undefined ? undefined : parseFilter(query.filter);
    const name = filter && equalityOn(filter, 'displayname');
    const found = name !== undefined ? [await this.deps.repo.groups.byUnique(orgId, 'display_name', name)].filter((g): g is ScimGroup => g !== undefined) : await this.ofOrg(orgId);
    const matched = filter === undefined ? found : found.filter((g) => matches({ id: g.id, ...groupAttributes(g), meta: filterMeta(g) }, filter, CASE_EXACT));
    return { total: matched.length, startIndex: query.startIndex, items: matched.slice(query.startIndex - 1, query.startIndex - 1 + query.count) };
  }

  /** Makes a group (and its team); its members must be users of the organization. `maker`: the member whose token asks (see `place`). */
  async create(orgId: string, body: Record<string, unknown>, maker?: string): Promise<ScimGroup> {
    const fields = await this.checked(orgId, readGroupFields(body));
    if ((await this.deps.repo.groups.byUnique(orgId, 'display_name', fields.displayName)) !== undefined) throw new ScimError(409, 'displayName is taken in this organization', 'uniqueness');
    const teamId = await this.deps.orgs.directoryTeam(orgId, undefined, fields.displayName);
    const now = Date.now();
    const group: ScimGroup = { ...fields, id: randomUUID(), orgId, teamId, created: now, modified: now, version: 1 };
    try {
      await this.deps.repo.groups.insert(group, attributeOf);
    } catch (err) {
      await this.deps.orgs.removeDirectoryTeam(orgId, teamId);
      throw err;
    }
    await this.placeAll(orgId, group.members, maker);
    this.deps.events.emit({
      type: 'scim.group.created',
      actor: { kind: 'system' },
      data: { org: orgId, scimId: group.id, team: teamId, displayName: group.displayName, members: group.members.length },
    });
    return group;
  }

  /** Replaces a group (`PUT`). */
  replace(orgId: string, id: string, body: Record<string, unknown>, ifMatch?: string, maker?: string): Promise<ScimGroup> {
    return this.change(orgId, id, () => readGroupFields(body), ifMatch, true, maker);
  }

  /** Applies PATCH operations (`members` added and removed, `displayName` replaced). */
  patch(orgId: string, id: string, operations: PatchOperation[], ifMatch?: string, maker?: string): Promise<ScimGroup> {
    return this.change(orgId, id, (current) => readGroupFields(applyPatch(groupAttributes(current), operations, GROUP_LISTS)), ifMatch, true, maker);
  }

  /** Deletes a group and its team; its users stay members of the organization. */
  async delete(orgId: string, id: string, maker?: string, ifMatch?: string): Promise<void> {
    const group = await this.get(orgId, id);
    checkVersion(ifMatch, group.version, 'group');
    if (!(await this.deps.repo.groups.delete(id))) throw notFound();
    await this.deps.orgs.removeDirectoryTeam(orgId, group.teamId);
    await this.placeAll(orgId, group.members, maker);
    this.deps.events.emit({ type: 'scim.group.deleted', actor: { kind: 'system' }, data: { org: orgId, scimId: id, team: group.teamId, displayName: group.displayName } });
  }

  /**
   * Puts an active user in the teams of its groups and, when the organization maps groups to roles,
   * gives it their roles: those the map's author could grant now and, when a token's `maker` asks,
   * those the maker could grant too; a maker who could not act on the user in the app leaves its
   * roles as they are (one role hierarchy).
   */
  async place(user: ScimUser, maker?: string): Promise<void> {
    if (!user.active) return;
    const groups = await this.ofOrg(user.orgId);
    const mine = groups.filter((g) => g.members.includes(user.id));
    const settings = await this.settings(user.orgId);
    const mapping = settings.groupRoles;
    const wanted = Object.keys(mapping).length === 0 ? undefined : mine.flatMap((g) => ownValue(mapping, g.displayName.toLowerCase()) ?? []);
    // The map gives what its author could give in the app now, never more (a demoted admin's map gives member).
    let mapped = wanted === undefined ? undefined : grantableBy(this.deps.orgs, await rolesIn(this.deps.orgs, user.orgId, settings.changedBy), wanted);
    if (mapped !== undefined && maker !== undefined)
      mapped = (await mayActOn(this.deps.orgs, user.orgId, maker, user.userId)) ? grantableBy(this.deps.orgs, await rolesIn(this.deps.orgs, user.orgId, maker), mapped) : undefined;
    await this.deps.orgs.placeMember(user.orgId, user.userId, { managed: groups.map((g) => g.teamId), wanted: mine.map((g) => g.teamId), roles: mapped }, SCIM_SOURCE);
  }

  /** A deleted user leaves every group of its organization. */
  async leaveGroups(user: ScimUser): Promise<void> {
    for (const group of await this.ofOrg(user.orgId)) {
      if (!group.members.includes(user.id)) continue;
      await this.change(user.orgId, group.id, (current) => ({ ...current, members: current.members.filter((m) => m !== user.id) }), undefined, false);
    }
  }

  /** The organization's mapping of group names to roles. */
  async settings(orgId: string): Promise<ScimSettings> {
    return (await this.deps.repo.settings.get(orgId)) ?? { id: orgId, groupRoles: {}, changedBy: '', changed: 0 };
  }

  /** Sets the mapping (the caller checked the roles), then gives every provisioned user of the organization the roles it now means. */
  async setSettings(orgId: string, groupRoles: Record<string, string>, changedBy: string): Promise<ScimSettings> {
    const next: ScimSettings = { id: orgId, groupRoles: Object.fromEntries(Object.entries(groupRoles).map(([k, v]) => [k.toLowerCase(), v])), changedBy, changed: Date.now() };
    if (!(await this.deps.repo.settings.insert(next)).inserted) await this.deps.repo.settings.update(orgId, () => next);
    // The new map acts with its author's power: never on a member the author could not act on.
    for (const user of await this.deps.repo.users.ofOrg(orgId)) await this.place(user, changedBy);
    this.deps.events.emit({ type: 'scim.settings.changed', userId: changedBy, actor: { kind: 'user', id: changedBy }, data: { org: orgId, groupRoles: next.groupRoles } });
    return next;
  }

  /** The groups and the settings of a deleted organization go. */
  async orgDeleted(orgId: string): Promise<void> {
    for (const group of await this.ofOrg(orgId)) await this.deps.repo.groups.delete(group.id);
    await this.deps.repo.settings.delete(orgId);
  }

  private async change(orgId: string, id: string, next: (current: ScimGroup) => ScimGroupFields, ifMatch: string | undefined, check = true, maker?: string): Promise<ScimGroup> {
    const before = await this.get(orgId, id);
    checkVersion(ifMatch, before.version, 'group');
    const fields = check ? await this.checked(orgId, next(before), before.members) : next(before);
    const after = await this.deps.repo.groups.change(
      id,
      before.version,
      (current) => ({ ...current, displayName: fields.displayName, externalId: fields.externalId, members: fields.members, modified: Date.now(), version: current.version + 1 }),
      attributeOf,
    );
    if (after === undefined) throw notFound();
    if (after === 'stale') {
      checkVersion(ifMatch, -1, 'group'); // the version read is gone: only `*` goes on
      return this.change(orgId, id, next, undefined, check, maker);
    }
    if (after.displayName !== before.displayName) await this.deps.orgs.directoryTeam(orgId, after.teamId, after.displayName);
    const renamed = after.displayName.toLowerCase() !== before.displayName.toLowerCase();
    const moved = renamed
      ? [...new Set([...before.members, ...after.members])]
      : [...before.members.filter((m) => !after.members.includes(m)), ...after.members.filter((m) => !before.members.includes(m))];
    await this.placeAll(orgId, moved, maker);
    this.deps.events.emit({
      type: 'scim.group.updated',
      actor: { kind: 'system' },
      data: { org: orgId, scimId: id, team: after.teamId, displayName: after.displayName, members: after.members.length },
    });
    return after;
  }

  /** Members must be users of this organization (never another's). */
  private async checked(orgId: string, fields: ScimGroupFields, known: readonly string[] = []): Promise<ScimGroupFields> {
    const before = new Set(known);
    for (const id of fields.members) {
      if (before.has(id)) continue;
      const user = await this.deps.repo.users.get(id);
      if (user === undefined || user.orgId !== orgId) throw new ScimError(400, `no user ${id.slice(0, 64)} in this organization`, 'invalidValue');
    }
    return fields;
  }

  private async placeAll(orgId: string, userIds: readonly string[], maker?: string): Promise<void> {
    for (const id of userIds) {
      const user = await this.deps.repo.users.get(id);
      if (user !== undefined && user.orgId === orgId) await this.place(user, maker);
    }
  }
}
