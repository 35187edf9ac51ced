import { configError, positiveMs } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';

/** Options of the admin plugin: `admin({ ... })`. */
export interface AdminOptions {
  /** Who is an admin, besides users whose token says `attrs.admin === true`. @default nobody else */
  isAdmin?: ((user: User) => boolean) | undefined;
  /** The longest an admin may act as a user, in ms. @default 3600000 (1 hour) */
  impersonationMaxAge?: number | undefined;
}

/** {@link AdminOptions} checked, with defaults. */
export interface ResolvedAdminOptions {
  isAdmin: ((user: User) => boolean) | undefined;
  impersonationMaxAge: number;
}

/** Checks {@link AdminOptions} at once (a mistake fails at start-up). */
export function checkAdminOptions(options: AdminOptions = {}): ResolvedAdminOptions {
  if (options === null || typeof options !== 'object') throw configError('admin() takes an options object (or nothing)');
  if (options.isAdmin !== undefined && typeof options.isAdmin !== 'function') throw configError('admin.isAdmin must be a function (user) => boolean');
  return { isAdmin: options.isAdmin, impersonationMaxAge: positiveMs('admin.impersonationMaxAge', options.impersonationMaxAge, 3_600_000) };
}
