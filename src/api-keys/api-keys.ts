import type { IncomingMessage } from 'node:http';
import { AuthError } from '../errors';
import { BoundedMap } from '../internal/bounded-map';
import { safeEqual } from '../internal/random';
import type { BearerResolver } from '../middleware/authenticator';
import type { PluginContext } from '../plugins/plugin';
import type { Credential } from '../credentials/credential-store';
import type { Subscription } from '../state/state-store';
import type { User } from '../token/user';
import { isBanned } from '../users/user-store';
import { apiKeyId, bearerApiKey, isApiKey, newApiKey } from './api-key-format';

/** The channel on which deleted keys (`key:<id>`) and users whose keys stop (`user:<id>`) are announced. */
export const API_KEY_CHANNEL = 'api-key-changed';
const CACHED_KEYS = 10_000;
const CACHE_TTL_MS = 10 * 60_000;
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
}

/** What a request acting through a key carries: `apiKeyOf(req)`. */
export interface ApiKeyUse {
  id: string;
  scopes: readonly string[];
}

interface KeyData {
  prefix: string;
  scopes: string[];
  expiresAt: number | null;
}

interface Known {
  user: User;
  use: ApiKeyUse;
  expiresAt: number | null;
}

const REGISTRY = Symbol.for('authgate.request-api-keys-v1');
const uses: WeakMap<IncomingMessage, ApiKeyUse> = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??= new WeakMap()) as WeakMap<IncomingMessage, ApiKeyUse>;

/** The key a request acts through (behind `m.auth`), or `undefined` for a session. */
export function apiKeyOf(req: IncomingMessage): ApiKeyUse | undefined {
  return uses.get(req);
}

function view(c: Credential): ApiKeyView {
  const data = c.data as unknown as KeyData;
  return { id: c.id, name: c.label, prefix: data.prefix, scopes: data.scopes, created: c.created, lastUsed: c.lastUsed, expiresAt: data.expiresAt };
}

/** The options the service runs with (checked by the plugin). */
export interface ApiKeyServiceOptions {
  maxKeysPerUser: number;
  maxTtlMs: number | undefined;
  /** Counts a request of a key (`apiKeyRequests`), when that limit is on. */
  perKeyLimit: boolean;
}

/**
 * API keys: made, listed, renamed and deleted by their owner, stored only as a hash among the
 * owner's credentials, and accepted by `m.auth` as `Authorization: Bearer agk_…`. Each process keeps
 * the keys it has seen in memory while the state store's announcements are live: a deleted key, or
 * a banned or deleted owner, stops working on every instance at the next request.
 */
export class ApiKeys implements BearerResolver {
  private readonly known = new BoundedMap<string, Known>(CACHED_KEYS);
  private epoch = 0;
  private readonly subscription: Subscription | undefined;
  private readonly usedLately = new BoundedMap<string, true>(CACHED_KEYS);
  /** Owners seen lately (`null`: banned or gone), so a key this process has not seen costs one store read. */
  private readonly owners = new BoundedMap<string, User | null>(CACHED_KEYS);

  /**
   * @param ctx - the core's services.
   * @param options - the plugin's limits.
   */
  constructor(
    private readonly ctx: PluginContext,
    private readonly options: ApiKeyServiceOptions,
  ) {
    this.subscription = ctx.stateStore.subscribe?.(
      API_KEY_CHANNEL,
      (message) => {
        this.forget(message);
      },
      () => {
        this.epoch++;
        this.known.clear();
        this.owners.clear();
      },
    );
  }

  /** @inheritdoc */
  carries(req: IncomingMessage): boolean {
    return bearerApiKey(req.headers.authorization) !== undefined;
  }

  /** @inheritdoc */
  now(req: IncomingMessage): User | undefined {
    if (this.options.perKeyLimit || this.subscription?.live !== true) return undefined;
    const key = bearerApiKey(req.headers.authorization);
    if (key === undefined) return undefined;
    const known = this.known.get(apiKeyId(key));
    if (known === undefined || (known.expiresAt !== null && known.expiresAt <= Date.now())) return undefined;
    uses.set(req, known.use);
    return { ...known.user };
  }

  /** @inheritdoc */
  async resolve(req: IncomingMessage): Promise<User> {
    const key = bearerApiKey(req.headers.authorization);
    const refused = (why: string): AuthError => new AuthError('unauthorized', why, { reason: 'token_invalid' });
    if (key === undefined || !isApiKey(key)) throw refused('the API key is malformed');
    const id = apiKeyId(key);
    if (this.options.perKeyLimit) await this.ctx.rateLimit('apiKeyRequests', id);
    const live = this.subscription?.live === true;
    const epoch = this.epoch;
    const credential = await this.ctx.credentials.get(id);
    // The id is the key's hash; comparing it again costs nothing and keeps the check constant-time.
    if (credential === undefined || credential.kind !== 'api_key' || !safeEqual(credential.id, id)) throw refused('the API key is unknown or was deleted');
    const data = credential.data as unknown as KeyData;
    if (data.expiresAt !== null && data.expiresAt <= Date.now()) throw refused('the API key has expired');
    const owner = await this.owner(credential.userId, live && epoch === this.epoch);
    if (owner === null) throw new AuthError('unauthorized', 'the owner of this API key is banned or gone', { reason: 'banned' });
    const known: Known = {
      user: owner,
      use: Object.freeze({ id, scopes: Object.freeze([...data.scopes]) }),
      expiresAt: data.expiresAt,
    };
    if (live && epoch === this.epoch) this.known.set(id, known, CACHE_TTL_MS);
    this.touch(credential);
    uses.set(req, known.use);
    return { ...known.user };
  }

  /** The owner of a key as its requests act (`null`: banned or gone), from memory when it can be trusted. */
  private async owner(userId: string, cacheable: boolean): Promise<User | null> {
    const known = cacheable ? this.owners.get(userId) : undefined;
    if (known !== undefined) return known;
    const record = await this.ctx.users.get(userId);
    const owner = record === undefined || isBanned(record) ? null : { id: record.id, name: record.name, picture: record.picture ?? '', ...(record.email ? { email: record.email } : {}) };
    if (cacheable) this.owners.set(userId, owner, CACHE_TTL_MS);
    return owner;
  }

  private forget(message: string): void {
    this.epoch++;
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

  /** Makes a key for `user`; the key is in the answer only. */
  async create(user: User, input: { name: string; scopes: string[]; expiresIn: number | undefined }): Promise<ApiKeyView & { key: string }> {
    const mine = (await this.ctx.credentials.list(user.id)).filter((c) => c.kind === 'api_key');
    if (mine.length >= this.options.maxKeysPerUser) throw new AuthError('conflict', `at most ${this.options.maxKeysPerUser} API keys per user: delete one first`, { reason: 'limit_reached' });
    if (input.expiresIn !== undefined && this.options.maxTtlMs !== undefined && input.expiresIn > this.options.maxTtlMs)
      throw new AuthError('bad_request', 'expiresIn is longer than this site allows');
    const made = newApiKey();
    const now = Date.now();
    const data: KeyData = { prefix: made.prefix, scopes: input.scopes, expiresAt: input.expiresIn === undefined ? null : now + input.expiresIn };
    const credential: Credential = { id: made.id, userId: user.id, kind: 'api_key', label: input.name, created: now, lastUsed: 0, data: data as unknown as Record<string, unknown> };
    if (!(await this.ctx.credentials.add(credential))) throw new AuthError('unavailable', 'try again');
    this.ctx.kit.notifyCredentialChange(user, { kind: 'API key', change: 'added', detail: `${input.name}, ${made.prefix}…` });
    return { ...view(credential), key: made.key };
  }

  /** The user's keys, oldest first. */
  async list(userId: string): Promise<ApiKeyView[]> {
    return (await this.ctx.credentials.list(userId)).filter((c) => c.kind === 'api_key').map(view);
  }

  private async own(userId: string, id: string): Promise<Credential> {
    const found = await this.ctx.credentials.get(id);
    if (found === undefined || found.kind !== 'api_key' || found.userId !== userId) throw new AuthError('not_found', 'no such API key');
    return found;
  }

  /** Renames one of the user's keys. */
  async rename(userId: string, id: string, name: string): Promise<ApiKeyView> {
    await this.own(userId, id);
    const saved = await this.ctx.credentials.update(id, (c) => ({ ...c, label: name }));
    if (saved === undefined) throw new AuthError('not_found', 'no such API key');
    return view(saved);
  }

  /** Deletes one of the user's keys: it stops on every instance at once. */
  async remove(user: User, id: string): Promise<void> {
    const found = await this.own(user.id, id);
    await this.ctx.credentials.delete(id);
    await this.announce(`key:${id}`);
    this.ctx.kit.notifyCredentialChange(user, { kind: 'API key', change: 'removed', detail: `${found.label}, ${(found.data as unknown as KeyData).prefix}…` });
  }

  /** Deletes every key of a user (the owner took the account back); what went, in words. */
  async removeAll(userId: string): Promise<string[]> {
    const keys = (await this.ctx.credentials.list(userId)).filter((c) => c.kind === 'api_key');
    for (const k of keys) await this.ctx.credentials.delete(k.id);
    if (keys.length > 0) await this.announce(`user:${userId}`);
    return keys.length === 0 ? [] : [`${keys.length} API key${keys.length === 1 ? '' : 's'}`];
  }

  /** Tells every instance (and this one) that keys changed. */
  async announce(message: string): Promise<void> {
    this.forget(message);
    await this.ctx.stateStore.publish?.(API_KEY_CHANNEL, message);
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
