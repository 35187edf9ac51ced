import { AuthError } from '../errors';
import { uriPath, uriScheme } from '../internal/store-uri';
import { LevelAvatarStore } from './stores/level-store';
import { MongoAvatarStore } from './stores/mongo-store';
import { FileAvatarStore } from './stores/file-store';
import { MemoryAvatarStore } from './stores/memory-store';
import { NoopAvatarStore } from './stores/noop-store';

/**
 * Where avatars are kept. Every method is async; ids outside the avatar id shape
 * (`<40 hex>.image`) are refused before any storage is touched.
 */
export interface AvatarStore {
  /** Stores a user's avatar; returns its avatar id (`''` for a store that keeps nothing). */
  put(userId: string, data: Buffer): Promise<string>;
  /** The avatar bytes, or `undefined` when there are none. */
  get(avatarId: string): Promise<Buffer | undefined>;
  /** A fingerprint that changes when the avatar does (used as the ETag); `undefined` when missing. */
  id(avatarId: string): Promise<string | undefined>;
  /** Deletes an avatar; a missing one is not an error. */
  remove(avatarId: string): Promise<void>;
  /** Every stored avatar id. */
  list(): Promise<string[]>;
  /** Releases resources; later calls fail. */
  close(): Promise<void>;
}

/** The URI schemes {@link createAvatarStore} accepts. */
export const AVATAR_STORE_SCHEMES = ['file://', 'level://', 'mongodb://', 'memory://', 'noop://'] as const;

/**
 * Makes an avatar store from a URI: `file:///path` or a plain path (one file per avatar in sharded
 * folders), `level:///path` (embedded key-value), `mongodb://host/db?ava_db=&ava_coll=` (GridFS,
 * shared by several instances), `memory://` (bounded, for tests and single processes), `noop://`
 * (keeps nothing).
 * @throws AuthError (`config`) naming the accepted schemes for anything else.
 */
export function createAvatarStore(uri: string): AvatarStore {
  if (typeof uri !== 'string' || uri.trim() === '') {
    throw new AuthError('config', `authgate: avatar store URI is empty; use one of ${AVATAR_STORE_SCHEMES.join(', ')} or a path`);
  }
  const scheme = uriScheme(uri);
  switch (scheme) {
    case undefined:
      return new FileAvatarStore(uri);
    case 'file':
      return new FileAvatarStore(uriPath(uri, 'file:///var/lib/app/avatars'));
    case 'level':
      return new LevelAvatarStore(uriPath(uri, 'level:///var/lib/app/avatars'));
    case 'mongodb':
    case 'mongodb+srv':
      return new MongoAvatarStore(uri);
    case 'memory':
      return new MemoryAvatarStore();
    case 'noop':
      return new NoopAvatarStore();
    default:
      throw new AuthError('config', `authgate: unknown avatar store scheme "${scheme}:"; use one of ${AVATAR_STORE_SCHEMES.join(', ')} or a path`);
  }
}
