import { type Logger, logTo } from '../../base/logger';
import { safeFetch, type SafeFetchLimits } from '../../internal/safe-fetch';
import type { User } from '../token/user';
import { avatarIdFor } from './avatar-id';
import { identicon } from './identicon';
import { normalizeImage } from './normalize-image';
import type { AvatarStore } from './avatar-store';
import { NoopAvatarStore } from './noop-avatar-store';

/** Settings of the {@link AvatarProxy}. */
export interface AvatarProxyOptions {
  /** Where avatars go. */
  store: AvatarStore;
  /** Public URL the avatar router answers at, e.g. `http://127.0.0.1:8080/avatar`. */
  routeUrl: string;
  /** Resize box; 0 keeps the size. */
  resizeLimit: number;
  /** Pixel cap of a fetched image. */
  maxPixels: number;
  /** Limits of the picture fetch. */
  fetch: SafeFetchLimits;
  /** Derives avatar ids with HMAC-SHA1 under this secret instead of plain sha1 of the user id. */
  idSecret?: string | undefined;
  /** Where failures are logged. */
  logger: Logger;
}

/**
 * Fetches a user's picture once at login, keeps it in the avatar store and points the user's
 * `picture` at the avatar route, so browsers never load images from third parties. Falls back to
 * an identicon when there is no picture or it cannot be used.
 */
export class AvatarProxy {
  /** @param options - store, links and limits. */
  constructor(private readonly options: AvatarProxyOptions) {}

  /** The avatar id of a user id (see {@link avatarIdFor}; keyed with `idSecret` when set). */
  avatarId(userId: string): string {
    return avatarIdFor(userId, this.options.idSecret);
  }

  /** Deletes the avatar of a user id (an account that is gone); a missing one is not an error. */
  async removeFor(userId: string): Promise<void> {
    await this.options.store.remove(this.avatarId(userId));
  }

  /**
   * Stores the avatar for `user` and returns the picture URL to put in the token (`''` when the
   * store keeps nothing).
   * @param noAva - skip the picture, use the identicon.
   */
  async put(user: User, noAva = false): Promise<string> {
    try {
      return await this.putOrThrow(user, noAva);
    } catch (err) {
      // A login goes on without an avatar rather than failing on an unavailable avatar store.
      logTo(this.options.logger).warn('avatar of {user} not stored: {error}', { user: user.id, error: (err as Error)?.message ?? 'unknown' });
      return '';
    }
  }

  private async putOrThrow(user: User, noAva: boolean): Promise<string> {
    const { store } = this.options;
    // Nothing to fetch or draw for a store that keeps nothing.
    if (store instanceof NoopAvatarStore) return '';
    const source = noAva ? '' : user.picture;
    let avatarId: string;
    if (source) {
      avatarId = await this.putFetched(user, source);
    } else {
      const key = this.avatarId(user.id);
      const existing = await store.id(key);
      avatarId = existing !== undefined ? key : await store.put(key, identicon(user.id, this.identiconSize()));
    }
    return avatarId === '' ? '' : `${this.options.routeUrl}/${avatarId}`;
  }

  /**
   * Stores image bytes the caller fetched itself (e.g. a Telegram profile photo, whose URL holds
   * the bot token) with the same checks; falls back like `put`. Returns the picture URL.
   */
  async putImage(user: User, fetch: () => Promise<Buffer>): Promise<string> {
    const avatarId = await this.storeOrFallback(user, fetch);
    return avatarId === '' ? '' : `${this.options.routeUrl}/${avatarId}`;
  }

  private putFetched(user: User, source: string): Promise<string> {
    return this.storeOrFallback(user, () => safeFetch(source, this.options.fetch));
  }

  private async storeOrFallback(user: User, fetch: () => Promise<Buffer>): Promise<string> {
    const { store, logger } = this.options;
    const key = this.avatarId(user.id);
    try {
      return await store.put(key, await normalizeImage(await fetch(), this.options.resizeLimit, this.options.maxPixels));
    } catch (err) {
      logTo(logger).warn('avatar of {user} not used, identicon instead: {error}', { user: user.id, error: (err as Error).message });
    }
    // A stored avatar beats an identicon when the provider's picture is only briefly unreachable.
    if ((await store.id(key)) !== undefined) return key;
    return store.put(key, identicon(user.id, this.identiconSize()));
  }

  private identiconSize(): number {
    const limit = this.options.resizeLimit;
    return limit > 0 && limit < 256 ? limit : 256;
  }
}
