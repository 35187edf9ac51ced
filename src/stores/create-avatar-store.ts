import { AuthError } from '../base/errors';
import { uriPath, uriScheme } from '../internal/store-uri';
import { storeFor } from './adapters';
import { CollectionAvatarStore } from '../core/avatar/collection-avatar-store';
import { FileAvatarStore } from './file/file-avatar-store';
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
  if (scheme === undefined) return new FileAvatarStore(uri);
  if (scheme === 'file') return new FileAvatarStore(uriPath(uri, 'file:///var/lib/app/avatars'));
  if (scheme === 'noop') return new NoopAvatarStore();
  if (!AVATAR_STORE_SCHEMES.includes(`${scheme}://` as (typeof AVATAR_STORE_SCHEMES)[number])) {
    throw new AuthError('config', `authgate: unknown avatar store scheme "${scheme}:"; use one of ${AVATAR_STORE_SCHEMES.join(', ')} or a path`);
  }
  return storeFor('avatars', uri, 'avatar', AVATAR_STORE_SCHEMES, (database) => new CollectionAvatarStore(database));
}
