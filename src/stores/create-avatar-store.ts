import { AuthError } from '../base/errors';
import { uriPath, uriScheme } from '../internal/store-uri';
import { openDatabase } from './open-database';
import { CollectionAvatarStore } from '../core/avatar/collection-avatar-store';
import { LevelAvatarStore } from './level/level-avatar-store';
import { MongoAvatarStore } from './mongo/mongo-avatar-store';
import { PostgresAvatarStore } from './postgres/postgres-avatar-store';
import { FileAvatarStore } from './file/file-avatar-store';
import { MemoryAvatarStore } from './memory/memory-avatar-store';
import { NoopAvatarStore } from '../core/avatar/noop-avatar-store';
import type { AvatarStore } from '../core/avatar/avatar-store';

/** The URI schemes {@link createAvatarStore} accepts. */
export const AVATAR_STORE_SCHEMES = ['file://', 'level://', 'postgres://', 'postgresql://', 'mysql://', 'sqlite://', 'mongodb://', 'memory://', 'noop://'] as const;

/**
 * Makes an avatar store from a URI: `file:///path` or a plain path (one file per avatar in sharded
 * folders), `level:///path` (embedded key-value), `sqlite:///path/file.db`,
 * `postgres://user@host/db?schema=app`, `mysql://user@host/db` and
 * `mongodb://host/db?ava_db=&ava_coll=` (GridFS) (these three shared by several instances),
 * `memory://` (bounded, for tests and single processes), `noop://`
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
    case 'postgres':
    case 'postgresql':
      return new PostgresAvatarStore(uri);
    case 'mysql':
    case 'sqlite':
      return new CollectionAvatarStore(openDatabase(uri, 'avatar'));
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
