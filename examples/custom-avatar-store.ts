/**
 * A custom avatar store: avatars in any async key-value service (Redis, Memcached, a cloud KV...).
 * It implements the public AvatarStore interface directly; the contract tests run against it.
 *
 *   const auth = createAuth({ url, secret, avatarStore: new KeyValueAvatarStore(myKvClient) });
 */
import { createHash } from 'node:crypto';
import { avatarIdFor, isAvatarId, type AvatarStore } from '../src';

/** The little a key-value client must offer. */
export interface KeyValueClient {
  get(key: string): Promise<Buffer | undefined>;
  set(key: string, value: Buffer): Promise<void>;
  del(key: string): Promise<void>;
  keys(prefix: string): Promise<string[]>;
}

/** An in-memory KeyValueClient, to try the store without a server. */
export class MapKeyValueClient implements KeyValueClient {
  private readonly map = new Map<string, Buffer>();
  async get(key: string): Promise<Buffer | undefined> {
    return this.map.get(key);
  }
  async set(key: string, value: Buffer): Promise<void> {
    this.map.set(key, Buffer.from(value));
  }
  async del(key: string): Promise<void> {
    this.map.delete(key);
  }
  async keys(prefix: string): Promise<string[]> {
    return [...this.map.keys()].filter((k) => k.startsWith(prefix));
  }
}

/** Avatars under `avatar:<id>`, fingerprints under `avatar-fp:<id>`. */
export class KeyValueAvatarStore implements AvatarStore {
  private closed = false;

  constructor(private readonly kv: KeyValueClient) {}

  async put(userId: string, data: Buffer): Promise<string> {
    this.ensureOpen();
    if (!userId) throw new Error('avatar store: empty user id');
    if (data.length === 0) throw new Error('avatar store: empty avatar');
    const avatarId = avatarIdFor(userId);
    await this.kv.set(`avatar:${avatarId}`, data);
    await this.kv.set(`avatar-fp:${avatarId}`, Buffer.from(createHash('sha1').update(data).digest('hex')));
    return avatarId;
  }

  async get(avatarId: string): Promise<Buffer | undefined> {
    // Refuse anything that is not an avatar id before it reaches the key-value service.
    this.ensureOpen();
    return isAvatarId(avatarId) ? this.kv.get(`avatar:${avatarId}`) : undefined;
  }

  async id(avatarId: string): Promise<string | undefined> {
    this.ensureOpen();
    if (!isAvatarId(avatarId)) return undefined;
    return (await this.kv.get(`avatar-fp:${avatarId}`))?.toString();
  }

  async remove(avatarId: string): Promise<void> {
    this.ensureOpen();
    if (!isAvatarId(avatarId)) return;
    await this.kv.del(`avatar:${avatarId}`);
    await this.kv.del(`avatar-fp:${avatarId}`);
  }

  async list(): Promise<string[]> {
    this.ensureOpen();
    return (await this.kv.keys('avatar:'))
      .map((k) => k.slice('avatar:'.length))
      .filter(isAvatarId)
      .sort();
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error('avatar store is closed');
  }
}
