import { configError } from '../../base/errors';
import { positiveMs } from '../../internal/option-checks';
import type { AvatarStore } from './avatar-store';

/** The options of the avatar proxy and route (part of `createAuth`'s options). */
export interface AvatarOptions {
  /** Where avatars are kept; a store or a URI for {@link createAvatarStore}. @default 'memory://' */
  avatarStore?: AvatarStore | string | undefined;
  /** Path the avatar router is mounted at, used to build avatar links. @default '/avatar' */
  avatarRoutePath?: string | undefined;
  /** Avatars wider or taller than this are resized once (aspect kept, PNG); 0 keeps the size. @default 0 */
  avatarResizeLimit?: number | undefined;
  /**
   * Derive avatar ids as HMAC-SHA1(secret, user id) instead of sha1(user id), so an avatar URL
   * cannot be guessed from a user id. Off by default because go-pkgz/auth uses the plain scheme:
   * with it set, avatar links differ from a Go service's for the same user. @default undefined
   */
  avatarIdSecret?: string | undefined;
  /** Let the avatar fetch reach loopback, private and link-local addresses (tests, intranets). @default false */
  avatarAllowPrivateNetworks?: boolean | undefined;
  /**
   * Origins (`http://127.0.0.1:8084`) whose pictures may be fetched although they are on loopback
   * or private addresses, exactly these (e.g. a development OAuth2 server); every other private
   * address stays refused. @default []
   */
  avatarAllowedOrigins?: string[] | undefined;
  /** Time limit of one avatar fetch. @default 5000 */
  avatarFetchTimeout?: number | undefined;
  /** Size limit of a fetched avatar in bytes. @default 10485760 (10 MiB) */
  avatarMaxBytes?: number | undefined;
  /** Pixel limit (width x height) of a fetched avatar; guards against decompression bombs. @default 16777216 (4096x4096) */
  avatarMaxPixels?: number | undefined;
}

/** {@link AvatarOptions} with defaults filled in; the store is still the option's value (opened by `createAuth`). */
export interface ResolvedAvatarOptions {
  avatarRoutePath: string;
  avatarResizeLimit: number;
  avatarIdSecret: string | undefined;
  avatarAllowPrivateNetworks: boolean;
  avatarAllowedOrigins: string[];
  avatarFetchTimeout: number;
  avatarMaxBytes: number;
  avatarMaxPixels: number;
}

/** Checks {@link AvatarOptions} and fills in the defaults. */
export function resolveAvatarOptions(options: AvatarOptions): ResolvedAvatarOptions {
  const avatarRoutePath = options.avatarRoutePath ?? '/avatar';
  if (!avatarRoutePath.startsWith('/')) throw configError('options.avatarRoutePath must start with "/"');
  const resizeLimit = options.avatarResizeLimit ?? 0;
  if (!Number.isInteger(resizeLimit) || resizeLimit < 0) throw configError('options.avatarResizeLimit must be a whole number >= 0');
  return {
    avatarRoutePath: avatarRoutePath.replace(/\/+$/, ''),
    avatarResizeLimit: resizeLimit,
    avatarIdSecret: options.avatarIdSecret || undefined,
    avatarAllowPrivateNetworks: options.avatarAllowPrivateNetworks ?? false,
    avatarAllowedOrigins: (options.avatarAllowedOrigins ?? []).map((origin) => {
      let url: URL | undefined;
      try {
        url = new URL(origin);
      } catch {
        /* refused below */
      }
      if (!url || url.origin !== origin.replace(/\/+$/, '') || !['http:', 'https:'].includes(url.protocol))
        throw configError(`options.avatarAllowedOrigins: ${JSON.stringify(origin)} is not an origin like "http://127.0.0.1:8084"`);
      return url.origin;
    }),
    avatarFetchTimeout: positiveMs('avatarFetchTimeout', options.avatarFetchTimeout, 5000),
    avatarMaxBytes: positiveMs('avatarMaxBytes', options.avatarMaxBytes, 10 * 1024 * 1024),
    avatarMaxPixels: positiveMs('avatarMaxPixels', options.avatarMaxPixels, 4096 * 4096),
  };
}
