import { randomUUID } from 'node:crypto';
import { AuthError } from '../../plugin-kit/helpers';
import { hashId } from '../../plugin-kit/sessions';
import {
  type PluginEvents,
  type PluginSessions,
  type PluginUsers,
  type DirectoryPerson,
  type OrgDirectory,
  type VerifiedDomains,
  mayActOn,
  type OrgAuthority,
  DIRECTORY_USER_PREFIX,
  takeoverRefusal,
} from '../../plugin-kit/plugin-api';
import { ScimError } from './scim-errors';
import { OrgCounts } from './org-counts';
import { checkVersion, filterMeta } from './versions';
import { equalityOn, matches, parseFilter } from './scim-filter';
import { applyPatch, type PatchOperation } from './scim-patch';
import type { ResourceRepository } from './resource-repository';
import { addressesOf, personName, readUserFields, userAttributes } from './user-resource';
import type { ScimUser, ScimUserFields } from './user-schema';

/** Removing a member in the app needs this permission: a token's maker needs it to deactivate or delete one. */
const REMOVE_PERMISSION = 'member:remove';

/** The most users an organization's directory may provision, unless `scim({ maxUsers })` says otherwise. */
export const MAX_SCIM_USERS = 100_000;

/** Paths compared with case in filters (RFC 7643: `id`, `externalId` are case-exact). */
const CASE_EXACT = new Set(['id', 'externalid']);
/** Multi-valued attributes of a user: `add` appends to them. */
const USER_LISTS = new Set(['emails']);
/** Where a SCIM change comes from, in events and on memberships. */
export const SCIM_SOURCE = 'scim';
const SOURCE = SCIM_SOURCE;
/** The attribute a unique index of users holds. */
const USER_ATTRIBUTES: Record<string, string> = { user_name: 'userName', external_id: 'externalId', user: 'this person' };
const attributeOf = (index: string): string => USER_ATTRIBUTES[index] ?? index;

/** What the SCIM users need of the core and of other plugins. */
export interface ScimUserDeps {
  repo: ResourceRepository<ScimUser>;
  orgs: OrgAuthority;
  users: PluginUsers;
  sessions: PluginSessions;
  events: PluginEvents;
  /** The SSO plugin's verified domains, when it is on: only there is a person linked to a member by e-mail. */
  domains(): VerifiedDomains | undefined;
  /** Puts an active user in the teams and roles of its groups (`maker`: the member whose token asks). */
  place(user: ScimUser, maker?: string): Promise<void>;
  /** A deleted user leaves its groups. */
  leaveGroups(user: ScimUser): Promise<void>;
  /** The most users one organization's directory may provision (past it, a create answers 400 `tooMany`). */
  maxUsers: number;
}

/** A page of a list: the users matched, from `startIndex` (1-based). */
export interface ScimPage<T> {
  total: number;
  startIndex: number;
  items: T[];
}

const notFound = (): ScimError => new ScimError(404, 'no such user in this organization');

/**
 * The people an organization's directory provisions through SCIM: each is an authgate user and,
 * while active, a member of the organization. Deactivating or deleting one ends the membership,
 * the user's sessions, and (through `org.member.deprovisioned`) what other plugins granted.
 */
export class ScimUsers implements OrgDirectory {
  /**
   * @param deps - the repository, the organizations' authority, the core's users, sessions and events.
   * @internal
   */
  constructor(private readonly deps: ScimUserDeps) {
    this.counts = new OrgCounts((orgId) => deps.repo.countOf(orgId));
  }

  /** The organizations' counts of users, at a cost that does not grow with them. */
  private readonly counts: OrgCounts;

  /** A user of the organization; a 404 for another organization's id. */
  async get(orgId: string, id: string): Promise<ScimUser> {
    const user = await this.deps.repo.get(id);
    if (user === undefined || user.orgId !== orgId) throw notFound();
    return user;
  }

  /** The users matching `filter` (all without one), `count` from `startIndex`. */
  async list(orgId: string, query: { filter?: string | undefined; startIndex: number; count: number }): Promise<ScimPage<ScimUser>> {
    const filter = query.filter === undefined ? undefined : parseFilter(query.filter);
    let found: ScimUser[];
    const userName = filter && equalityOn(filter, 'username');
    const externalId = filter && equalityOn(filter, 'externalid');
    // The questions directories ask most (`userName eq`, `externalId eq`) are one index read.
    if (userName !== undefined) found = [await this.deps.repo.byUnique(orgId, 'user_name', userName)].filter((u): u is ScimUser => u !== undefined);
    else if (externalId !== undefined) found = [await this.deps.repo.byUnique(orgId, 'external_id', externalId)].filter((u): u is ScimUser => u !== undefined);
    else if (filter === undefined) {
      // A page reads its own records and the organization's count, not every record.
      const total = await this.counts.of(orgId);
      const items = query.count === 0 || query.startIndex > total ? [] : await this.deps.repo.pageOf(orgId, query.startIndex, query.count);
      return { total, startIndex: query.startIndex, items };
    } else found = await this.deps.repo.ofOrg(orgId);
    const matched = filter === undefined ? found : found.filter((u) => matches({ id: u.id, ...userAttributes(u), meta: filterMeta(u) }, filter, CASE_EXACT));
    return { total: matched.length, startIndex: query.startIndex, items: matched.slice(query.startIndex - 1, query.startIndex - 1 + query.count) };
  }

  /**
   * Provisions a person: a new SCIM user, its directory record, and (when active) its membership.
   * 409 `uniqueness` for a taken `userName` or `externalId`, except for this same request sent
   * again: a create that failed half-way (its answer a 503 or lost) is finished and answered.
   */
  async create(orgId: string, body: Record<string, unknown>, maker?: string): Promise<ScimUser> {
    const fields = readUserFields(body);
    const earlier = await this.deps.repo.byUnique(orgId, 'user_name', fields.userName);
    if (earlier !== undefined && earlier.version === 1 && sameFields(earlier, fields) && (await this.halfMade(earlier))) {
      // The retry of a create whose first attempt stored the person and failed after: what it left undone is done now.
      await this.applied(undefined, earlier, maker);
      return earlier;
    }
    if ((await this.counts.of(orgId)) >= this.deps.maxUsers) throw new ScimError(400, `an organization's directory may provision at most ${this.deps.maxUsers} users`, 'tooMany');
    const id = randomUUID();
    const now = Date.now();
    const linked = await this.linkedMember(orgId, fields, maker);
    const user: ScimUser = { ...fields, id, orgId, userId: linked ?? hashId('scim', `${orgId}:${id}`), created: now, modified: now, version: 1 };
    await this.deps.repo.insert(user, attributeOf);
    this.counts.moved(orgId, 1);
    // Counted again with this person in: of racing creates, none passes the limit (each counts those written before its count).
    if ((await this.counts.of(orgId)) > this.deps.maxUsers) {
      await this.deps.repo.delete(user.id);
      this.counts.moved(orgId, -1);
      throw new ScimError(400, `an organization's directory may provision at most ${this.deps.maxUsers} users`, 'tooMany');
    }
    await this.applied(undefined, user, maker);
    this.deps.events.emit({ type: 'scim.user.created', userId: user.userId, actor: { kind: 'system' }, data: { org: orgId, scimId: id, userName: user.userName, active: user.active } });
    return user;
  }

  /**
   * Replaces a user's attributes (`PUT`); `ifMatch` (an `ETag`) refuses a stale change with 412.
   * `maker` is the member whose token asks: a token does what its maker could do in the app.
   */
  replace(orgId: string, id: string, body: Record<string, unknown>, ifMatch?: string, maker?: string): Promise<ScimUser> {
    return this.change(orgId, id, () => readUserFields(body), ifMatch, maker);
  }

  /** Applies PATCH operations (`add`, `replace`, `remove`, with paths and value filters) as one change. */
  patch(orgId: string, id: string, operations: PatchOperation[], ifMatch?: string, maker?: string): Promise<ScimUser> {
    return this.change(orgId, id, (current) => readUserFields(applyPatch(userAttributes(current), operations, USER_LISTS, ['groups'])), ifMatch, maker);
  }

  /** Deprovisions a person for good: the membership, the sessions and every grant end; the SCIM user goes. */
  async delete(orgId: string, id: string, maker?: string, ifMatch?: string): Promise<void> {
    const user = await this.get(orgId, id);
    checkVersion(ifMatch, user.version, 'user');
    await this.mayRemove(user, maker);
    // The person's record goes last: a failure before it (a 503) leaves it, so the directory's retry
    // of the DELETE finds the person and finishes, where a record gone first would answer 404 for ever.
    await this.deprovision(user, 'deleted', user.active);
    await this.deps.leaveGroups(user);
    if (!(await this.deps.repo.delete(id))) throw notFound();
    this.counts.moved(orgId, -1);
    this.deps.events.emit({ type: 'scim.user.deleted', userId: user.userId, actor: { kind: 'system' }, data: { org: orgId, scimId: id, userName: user.userName } });
  }

  /**
   * The person of organization `orgId`'s directory that the signed-in `account` may link to itself:
   * one of the directory's own (not linked to an account yet) with the account's e-mail, in a domain
   * the organization verified. `undefined` when there is none.
   */
  async offerFor(orgId: string, accountId: string): Promise<ScimUser | undefined> {
    if (!(await this.deps.orgs.idsOf(accountId)).includes(orgId)) return undefined;
    const record = await this.deps.users.get(accountId);
    const email = record?.email;
    const domains = this.deps.domains();
    if (email === undefined || domains === undefined || (await domains.verifiedOwner(email.slice(email.lastIndexOf('@') + 1))) !== orgId) return undefined;
    if ((await this.deps.repo.byUnique(orgId, 'user', accountId)) !== undefined) return undefined;
    const person = (await this.deps.repo.byUnique(orgId, 'user_name', email)) ?? (await this.deps.repo.ofOrg(orgId)).find((u) => addressesOf(u).includes(email));
    return person !== undefined && person.userId.startsWith(DIRECTORY_USER_PREFIX) && addressesOf(person).includes(email) ? person : undefined;
  }

  /**
   * The holder of `accountId` (a member of `orgId`, signed in with a fresh login) links their account
   * to the directory's person with their address: from now on the directory manages the account's
   * membership, and the organization's IdP may sign it in (its own second factor still asked). Refused
   * (403) for an account that belongs to other organizations or holds an app-admin grant (the linking
   * policy), 404 when the directory has no such person. The directory's own user of the person leaves.
   */
  async consent(orgId: string, accountId: string): Promise<ScimUser> {
    const orgIds = await this.deps.orgs.idsOf(accountId);
    if (!orgIds.includes(orgId)) throw new AuthError('forbidden', 'join the organization first', { reason: 'not_a_member' });
    const offer = await this.offerFor(orgId, accountId);
    if (offer === undefined) throw new AuthError('not_found', "the organization's directory has no person with your address to link", { reason: 'not_found' });
    if (takeoverRefusal(orgId, { record: await this.deps.users.get(accountId), orgIds, consented: true }) !== undefined)
      throw new AuthError('forbidden', 'an account that belongs to other organizations, or is an app admin, is never managed by one directory');
    const linked = await this.deps.repo.change(
      offer.id,
      offer.version,
      (current) => ({ ...current, userId: accountId, consented: true, modified: Date.now(), version: current.version + 1 }),
      attributeOf,
    );
    if (linked === undefined || linked === 'stale') throw new AuthError('conflict', 'the directory changed this person just now: try again');
    // The directory's own user of the person gives way to the account (its membership and sessions end).
    await this.deps.orgs.deprovision(orgId, offer.userId, SOURCE);
    await this.deps.sessions.revokeAll(offer.userId);
    // Its groups give it only roles the linking member could grant: linking gains no power.
    await this.applied(offer, linked, accountId);
    this.deps.events.emit({ type: 'scim.user.linked', userId: accountId, actor: { kind: 'user', id: accountId }, data: { org: orgId, scimId: linked.id, userName: linked.userName } });
    return linked;
  }

  /** @inheritdoc */
  async match(orgId: string, person: { subject: string; email?: string | undefined }): Promise<DirectoryPerson | undefined> {
    const byName = await this.deps.repo.byUnique(orgId, 'user_name', person.subject);
    const found =
      byName ??
      (await this.deps.repo.byUnique(orgId, 'external_id', person.subject)) ??
      (person.email === undefined ? undefined : await this.deps.repo.byUnique(orgId, 'user_name', person.email)) ??
      (person.email === undefined ? undefined : (await this.deps.repo.ofOrg(orgId)).find((u) => addressesOf(u).includes((person.email as string).toLowerCase())));
    return found === undefined ? undefined : { userId: found.userId, active: found.active, consented: found.consented === true };
  }

  /** The users of a deleted organization go (their memberships went with it). */
  async orgDeleted(orgId: string): Promise<void> {
    for (const user of await this.deps.repo.ofOrg(orgId)) await this.deps.repo.delete(user.id);
  }

  private async change(orgId: string, id: string, next: (current: ScimUser) => ScimUserFields, ifMatch: string | undefined, maker?: string): Promise<ScimUser> {
    const before = await this.get(orgId, id);
    checkVersion(ifMatch, before.version, 'user');
    const fields = next(before);
    if (before.active && fields.active === false) await this.mayRemove(before, maker);
    const after = await this.deps.repo.change(id, before.version, (current) => ({ ...current, ...clearMissing(current, fields), modified: Date.now(), version: current.version + 1 }), attributeOf);
    if (after === undefined) throw notFound();
    // Another change landed between the read and the write: a PATCH applies to what is stored now.
    if (after === 'stale') {
      checkVersion(ifMatch, -1, 'user'); // the version read is gone: only `*` goes on
      return this.change(orgId, id, next, undefined, maker);
    }
    await this.applied(before, after, maker);
    const type = before.active === after.active ? 'scim.user.updated' : after.active ? 'scim.user.reactivated' : 'scim.user.deactivated';
    this.deps.events.emit({ type, userId: after.userId, actor: { kind: 'system' }, data: { org: orgId, scimId: id, userName: after.userName } });
    return after;
  }

  /**
   * Refuses (403, before anything is written) to deactivate or delete an owner with the token of a
   * member who is no owner: a directory does to a member only what its token's maker could do in the
   * app, where an admin never removes an owner (docs/security.md, rule 2).
   */
  private async mayRemove(user: ScimUser, maker: string | undefined): Promise<void> {
    if (maker === undefined) return;
    const removes = await this.deps.orgs.authorize(user.orgId, maker, REMOVE_PERMISSION).then(
      () => true,
      () => false,
    );
    if (!removes) throw new ScimError(403, "this token's maker may not remove members in the app: use the token of a member who may");
    if (!(await mayActOn(this.deps.orgs, user.orgId, maker, user.userId)))
      throw new ScimError(403, "this token's maker could not remove this member in the app (only an owner removes an owner): use the token of a member who could");
  }

  /** Makes the organization and the directory record say what the SCIM user says. */
  private async applied(before: ScimUser | undefined, after: ScimUser, maker?: string): Promise<void> {
    // The directory writes the name and address of its own people only: an account it was linked
    // to keeps what its holder's logins say (notices go to that address).
    if (after.userId.startsWith(DIRECTORY_USER_PREFIX)) {
      const domains = this.deps.domains();
      const owned = await Promise.all(addressesOf(after).map(async (a) => ((await domains?.verifiedOwner(a.slice(a.lastIndexOf('@') + 1))) === after.orgId ? a : undefined)));
      // An address is kept on the user only in a domain the organization proved it owns.
      await this.deps.users.provision({ id: after.userId, name: personName(after), email: owned.find((a) => a !== undefined) });
    }
    if (after.active) {
      await this.deps.orgs.provision(after.orgId, after.userId, ['member'], SOURCE, { keepRoles: true });
      await this.deps.place(after, maker);
    } else await this.deprovision(after, 'suspended', before === undefined || before.active);
  }

  /** Whether a person's create stopped half-way: active but no member, or the directory's own user never recorded. */
  private async halfMade(user: ScimUser): Promise<boolean> {
    if (user.active) return !(await this.deps.orgs.idsOf(user.userId)).includes(user.orgId);
    return user.userId.startsWith(DIRECTORY_USER_PREFIX) && (await this.deps.users.get(user.userId)) === undefined;
  }

  /**
   * Ends what a person had through the organization: membership, sessions, and (by the event) keys
   * made for it and app grants. Repeatable: a directory that sends a deactivation again (its retry
   * after a 503) finishes what a failure left, and a person already gone is left as it is unless
   * `fresh` (this change is what made the person inactive).
   */
  private async deprovision(user: ScimUser, reason: 'suspended' | 'deleted', fresh = true): Promise<void> {
    const outcome = await this.deps.orgs.deprovision(user.orgId, user.userId, SOURCE);
    if (!fresh && outcome === 'absent') return;
    // What the organization granted ends; a person who belongs to other organizations keeps the
    // sessions they use there (their membership here is gone, so nothing of this organization lets them in).
    const sessions = (await this.deps.orgs.idsOf(user.userId)).length === 0 ? await this.deps.sessions.revokeAll(user.userId) : 0;
    this.deps.events.emit({ type: 'org.member.deprovisioned', userId: user.userId, actor: { kind: 'system' }, data: { org: user.orgId, source: SOURCE, reason, sessions } });
  }

  /**
   * The member a new SCIM user is, when the organization verified the domain of one of its
   * addresses and a member of the organization has that address, and the linking policy lets the
   * directory take the account over: a directory turned on after people joined through the
   * organization's SSO takes them over instead of making strangers of them. An account with a
   * password or another login, an app-admin grant or another organization is never taken: the
   * directory's person is a user of its own.
   */
  private async linkedMember(orgId: string, fields: ScimUserFields, maker?: string): Promise<string | undefined> {
    const domains = this.deps.domains();
    if (domains === undefined) return undefined;
    for (const address of addressesOf(fields)) {
      if ((await domains.verifiedOwner(address.slice(address.lastIndexOf('@') + 1))) !== orgId) continue;
      const { users } = await this.deps.users.list({ query: address, limit: 20 });
      for (const record of users.filter((u) => u.email === address)) {
        const orgIds = await this.deps.orgs.idsOf(record.id);
        // Only an account the organization's own IdP made, and nobody else's (the linking policy).
        if (!orgIds.includes(orgId) || takeoverRefusal(orgId, { record, orgIds }) !== undefined) continue;
        // Nor one its token's maker could not act on in the app (an admin's token never takes an owner).
        if (maker !== undefined && !(await mayActOn(this.deps.orgs, orgId, maker, record.id))) continue;
        if ((await this.deps.repo.byUnique(orgId, 'user', record.id)) === undefined) return record.id;
      }
    }
    return undefined;
  }
}

/** Whether a stored person says exactly what `fields` says (the same create, sent again). */
function sameFields(stored: ScimUser, fields: ScimUserFields): boolean {
  return JSON.stringify(userAttributes(stored)) === JSON.stringify(userAttributes(fields));
}

/** A replacement clears the optional attributes it does not name. */
function clearMissing(current: ScimUser, fields: ScimUserFields): ScimUserFields {
  const cleared = Object.fromEntries(
    Object.keys(current)
      .filter((k) => !['id', 'orgId', 'userId', 'consented', 'created', 'modified', 'version'].includes(k))
      .map((k) => [k, undefined]),
  );
  return { ...cleared, ...fields } as ScimUserFields;
}
