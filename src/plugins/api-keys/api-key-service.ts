import type { IncomingMessage } from 'node:http';
import { AuthError, BoundedMap, safeEqual, type Credential, isBanned } from '../../plugin-kit/helpers';
import type { BearerResolver, User } from '../../plugin-kit/sessions';
import { type PluginContext, ORGANIZATIONS_SERVICE, type OrgAuthority, actThroughKey, type ApiKeyUse } from '../../plugin-kit/plugin-api';
import { AnnouncedCache, type AnnouncedMap } from '../../plugin-kit/state';
import { apiKeyId, bearerApiKey, isApiKey, newApiKey } from './api-key-format';

/** The channel on which deleted keys (`key:<id>`) and users whose keys stop (`user:<id>`) are announced. */
export const API_KEY_CHANNEL = 'api-key-changed';
const CACHED_KEYS = 10_000;
const LAST_USED_EVERY_MS = 60_000;

/** A key as its owner sees it (never the key itself). */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created: number;
  /** ms since the epoch; 0 when never used. Kept to the minute. */
  lastUsed: number;
  /** ms since the epoch; `null` for a key that does not expire. */
  expiresAt: number | null;
  /** A key of an organization: the roles it acts with there. */
  roles?: string[];
  /** A key of an organization: the member who made it. */
  createdBy?: string;
}

/** What is kept beside a key's hash. */
interface KeyData {
  prefix: string;
  scopes: string[];
  expiresAt: number | null;
  /** A key of an organization: its id, the roles the key acts with, and who made it. */
  org?: string;
  roles?: string[];
  createdBy?: string;
}

interface Known {
  user: User;
  use: ApiKeyUse;
  expiresAt: number | null;
}

/** Whose a key is: a user's (the user id) or an organization's. */
export type KeyHolder = string | { org: string; createdBy: string; roles: string[] };

/** Keys of an organization are kept among the credentials of this owner id (no user id has a colon). */
export const orgKeyHolder = (orgId: string): string => `org:${orgId}`;

const dataOf = (c: Credential): KeyData => c.data as unknown as KeyData;

function view(c: Credential): ApiKeyView {
  const data = dataOf(c);
  const org = data.org === undefined ? {} : { roles: data.roles ?? [], createdBy: data.createdBy ?? '' };
  return { id: c.id, name: c.label, prefix: data.prefix, scopes: data.scopes, created: c.created, lastUsed: c.lastUsed, expiresAt: data.expiresAt, ...org };
}

/** The options the service runs with (checked by the plugin). */
export interface ApiKeyServiceOptions {
  maxKeysPerUser: number;
  maxKeysPerOrg: number;
  maxTtlMs: number | undefined;
  /** Counts a request of a key (`apiKeyRequests`), when that limit is on. */
  perKeyLimit: boolean;
}

/**
 * API keys: made, listed, renamed and deleted by their holder (a user, or an organization's
 * admins), stored only as a hash among the holder's credentials, and accepted by `m.auth` as
 * `Authorization: Bearer agk_…`. Each process keeps the keys it has seen in memory while the state
 * store's announcements are live: a deleted key, a banned or deleted owner, or a deleted
 * organization stops it on every instance at the next request.
 */
export class ApiKeys implements BearerResolver {
  private readonly cache: AnnouncedCache;
  private readonly known: AnnouncedMap<string, Known>;
  /** Owners seen lately (`null`: banned or gone), so a key this process has not seen costs one store read. */
  private readonly owners: AnnouncedMap<string, User | null>;
  private readonly usedLately = new BoundedMap<string, true>(CACHED_KEYS);

  /**
   * @param ctx - the core's services.
   * @param options - the plugin's limits.
   */
  constructor(
    private readonly ctx: PluginContext,
    private readonly options: ApiKeyServiceOptions,
  ) {
    this.orgs = ctx.service(ORGANIZATIONS_SERVICE);
    this.cache = new AnnouncedCache(ctx.stateStore, API_KEY_CHANNEL, (message) => this.forget(message));
    this.known = this.cache.map(CACHED_KEYS);
    this.owners = this.cache.map(CACHED_KEYS);
  }

  /** The organizations plugin's service, when it is on (set up before this plugin: it is `optional`). */
  readonly orgs: OrgAuthority | undefined;

  /** @inheritdoc */
  carries(req: IncomingMessage): boolean {
    return bearerApiKey(req.headers.authorization) !== undefined;
  }

  /** @inheritdoc */
  now(req: IncomingMessage): User | undefined {
    if (this.options.perKeyLimit) return undefined;
    const key = bearerApiKey(req.headers.authorization);
    if (key === undefined) return undefined;
    const known = this.known.get(apiKeyId(key));
    if (known === undefined || (known.expiresAt !== null && known.expiresAt <= Date.now())) return undefined;
    const org = known.use.org;
    if (org !== undefined && !this.orgs?.keyMembershipNow(org.id, { id: known.use.id, roles: org.roles })) return undefined;
    actThroughKey(req, known.use);
    return { ...known.user };
  }

  /** @inheritdoc */
  async resolve(req: IncomingMessage): Promise<User> {
    const key = bearerApiKey(req.headers.authorization);
    if (key === undefined || !isApiKey(key)) throw refused('the API key is malformed');
    const id = apiKeyId(key);
    if (this.options.perKeyLimit) await this.ctx.rateLimit('apiKeyRequests', id);
    const mark = this.cache.mark();
    const credential = await this.ctx.credentials.get(id);
    // The id is the key's hash; comparing it again costs nothing and keeps the check constant-time.
    if (credential === undefined || credential.kind !== 'api_key' || !safeEqual(credential.id, id)) throw refused('the API key is unknown or was deleted');
    const data = dataOf(credential);
    if (data.expiresAt !== null && data.expiresAt <= Date.now()) throw refused('the API key has expired');
    const scopes = Object.freeze([...data.scopes]);
    let known: Known;
    if (data.org === undefined) {
      const owner = await this.owner(credential.userId, mark);
      if (owner === null) throw new AuthError('unauthorized', 'the owner of this API key is banned or gone', { reason: 'banned' });
      known = { user: owner, use: Object.freeze({ id, scopes }), expiresAt: data.expiresAt };
    } else {
      const org = Object.freeze({ id: data.org, roles: Object.freeze([...(data.roles ?? [])]) });
      const orgs = this.orgs;
      if (orgs === undefined) throw refused('keys of organizations need the organizations plugin');
      if ((await orgs.keyMembership(org.id, { id, roles: org.roles })) === null) throw refused('the organization of this API key is gone');
      known = { user: { id: credential.userId, name: credential.label, picture: '' }, use: Object.freeze({ id, scopes, org }), expiresAt: data.expiresAt };
    }
    this.known.keep(mark, id, known);
    this.touch(credential);
    actThroughKey(req, known.use);
    return { ...known.user };
  }

  /** The owner of a key as its requests act (`null`: banned or gone), from memory when it can be trusted. */
  private async owner(userId: string, mark: number): Promise<User | null> {
    const known = this.cache.keep(mark) ? this.owners.get(userId) : undefined;
    if (known !== undefined) return known;
    const record = await this.ctx.users.get(userId);
    const owner = record === undefined || isBanned(record) ? null : { id: record.id, name: record.name, picture: record.picture ?? '', ...(record.email ? { email: record.email } : {}) };
    this.owners.keep(mark, userId, owner);
    return owner;
  }

  private forget(message: string): void {
    if (message.startsWith('key:')) {
      this.known.delete(message.slice(4));
      return;
    }
    this.known.clear();
    this.owners.delete(message.slice(5));
  }

  /** Writes `lastUsed` at most once a minute per key (from this process). */
  private touch(credential: Credential): void {
    const now = Date.now();
    if (now - credential.lastUsed < LAST_USED_EVERY_MS || this.usedLately.get(credential.id) !== undefined) return;
    this.usedLately.set(credential.id, true, LAST_USED_EVERY_MS);
    void this.ctx.credentials.update(credential.id, (c) => ({ ...c, lastUsed: now })).catch(() => undefined);
  }

  private async keysOf(holderId: string): Promise<Credential[]> {
    return (await this.ctx.credentials.list(holderId)).filter((c) => c.kind === 'api_key');
  }

  /**
   * Makes a key, by default for `by` itself; else for `holder` (an organization, with the member
   * who makes it and the roles the key acts with). `by` is told. The key is in the answer only.
   */
  async create(by: User, input: { name: string; scopes: string[]; expiresIn: number | undefined }, holder: KeyHolder = by.id): Promise<ApiKeyView & { key: string }> {
    const holderId = typeof holder === 'string' ? holder : orgKeyHolder(holder.org);
    const most = typeof holder === 'string' ? this.options.maxKeysPerUser : this.options.maxKeysPerOrg;
    if ((await this.keysOf(holderId)).length >= most)
      throw new AuthError('conflict', `at most ${most} API keys per ${typeof holder === 'string' ? 'user' : 'organization'}: delete one first`, { reason: 'limit_reached' });
    if (input.expiresIn !== undefined && this.options.maxTtlMs !== undefined && input.expiresIn > this.options.maxTtlMs)
      throw new AuthError('bad_request', 'expiresIn is longer than this site allows');
    const made = newApiKey();
    const now = Date.now();
    const data: KeyData = {
      prefix: made.prefix,
      scopes: input.scopes,
      expiresAt: input.expiresIn === undefined ? null : now + input.expiresIn,
      ...(typeof holder === 'string' ? {} : { org: holder.org, roles: holder.roles, createdBy: holder.createdBy }),
    };
    const credential: Credential = { id: made.id, userId: holderId, kind: 'api_key', label: input.name, created: now, lastUsed: 0, data: data as unknown as Record<string, unknown> };
    if (!(await this.ctx.credentials.add(credential))) throw new AuthError('unavailable', 'try again');
    this.ctx.kit.notifyCredentialChange(by, { kind: 'API key', change: 'added', detail: describe(credential) });
    return { ...view(credential), key: made.key };
  }

  /** The keys of a user or (with {@link orgKeyHolder}) an organization, oldest first. */
  async list(holderId: string): Promise<ApiKeyView[]> {
    return (await this.keysOf(holderId)).map(view);
  }

  private async held(holderId: string, id: string): Promise<Credential> {
    const found = await this.ctx.credentials.get(id);
    if (found === undefined || found.kind !== 'api_key' || found.userId !== holderId) throw new AuthError('not_found', 'no such API key');
    return found;
  }

  /** Renames a key of `holderId`. */
  async rename(holderId: string, id: string, name: string): Promise<ApiKeyView> {
    await this.held(holderId, id);
    const saved = await this.ctx.credentials.update(id, (c) => ({ ...c, label: name }));
    if (saved === undefined) throw new AuthError('not_found', 'no such API key');
    // The name of an organization's key is its request user's name.
    await this.announce(`key:${id}`);
    return view(saved);
  }

  /** Deletes a key of `holderId`: it stops on every instance at once; `by` is told. */
  async remove(by: User, holderId: string, id: string): Promise<void> {
    const found = await this.held(holderId, id);
    await this.ctx.credentials.delete(id);
    await this.announce(`key:${id}`);
    this.ctx.kit.notifyCredentialChange(by, { kind: 'API key', change: 'removed', detail: describe(found) });
  }

  /** Deletes every key of a holder (a deleted organization); how many went. */
  async removeHeldBy(holderId: string): Promise<number> {
    const keys = await this.keysOf(holderId);
    for (const k of keys) await this.ctx.credentials.delete(k.id);
    if (keys.length > 0) await this.announce(`user:${holderId}`);
    return keys.length;
  }

  /** The keys of the user's organizations that the user made. */
  private async orgKeysMadeBy(userId: string): Promise<Credential[]> {
    const orgIds = (await this.orgs?.idsOf(userId)) ?? [];
    const lists = await Promise.all(orgIds.map((o) => this.keysOf(orgKeyHolder(o))));
    return lists.flat().filter((k) => dataOf(k).createdBy === userId);
  }

  /**
   * Deletes every key the user holds or made for an organization (the owner took the account back:
   * a stolen session may have made them); what went, in words.
   */
  async removeAll(userId: string): Promise<string[]> {
    const own = await this.keysOf(userId);
    const made = await this.orgKeysMadeBy(userId);
    for (const k of [...own, ...made]) await this.ctx.credentials.delete(k.id);
    if (own.length > 0) await this.announce(`user:${userId}`);
    for (const k of made) await this.announce(`key:${k.id}`);
    const words = (n: number, what: string): string[] => (n === 0 ? [] : [`${n} ${what}${n === 1 ? '' : 's'}`]);
    return [...words(own.length, 'API key'), ...words(made.length, 'organization API key')];
  }

  /** Deletes the keys the user made for organization `orgId` (its directory deprovisioned the user); how many went. */
  async removeMadeFor(userId: string, orgId: string): Promise<number> {
    const made = (await this.keysOf(orgKeyHolder(orgId))).filter((k) => dataOf(k).createdBy === userId);
    for (const k of made) {
      await this.ctx.credentials.delete(k.id);
      await this.announce(`key:${k.id}`);
    }
    return made.length;
  }

  /** The keys a user made for its organizations follow a change of its id. */
  async userIdChanged(from: string, to: string): Promise<void> {
    for (const k of await this.orgKeysMadeBy(from)) await this.ctx.credentials.update(k.id, (c) => ({ ...c, data: { ...c.data, createdBy: to } }));
  }

  /** Tells every instance (and this one) that keys changed. */
  async announce(message: string): Promise<void> {
    await this.cache.announce(message);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.cache.close();
  }
}

function refused(why: string): AuthError {
  return new AuthError('unauthorized', why, { reason: 'token_invalid' });
}

/** A key in words, for its holder's notices: its name and prefix, never the key. */
function describe(c: Credential): string {
  return `${c.label}, ${dataOf(c).prefix}…`;
}
