import { AuthError } from '../base/errors';
import { displayUri } from './guarded-store';

/** The lower-case scheme of a store URI (`file`, `level`, `memory`, `mongodb`, ...), or `undefined` for a plain path. */
export function uriScheme(uri: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(uri)?.[1]?.toLowerCase();
}

/**
 * The folder of a `file://` or `level://` URI: `level:///var/lib/app/state` (absolute) or
 * `level://./var/state` (relative to the working directory). Query strings are not allowed.
 * @throws AuthError (`config`) when the path is missing.
 */
export function uriPath(uri: string, example: string): string {
  const rest = uri.slice(uri.indexOf('://') + 3);
  if (rest.includes('?')) throw new AuthError('config', `authgate: store URI ${displayUri(uri)} takes no query parameters`);
  const path = decodeURIComponent(rest);
  if (path === '' || path === '/') throw new AuthError('config', `authgate: store URI ${displayUri(uri)} needs a folder path, e.g. ${example}`);
  return path;
}

/**
 * The store of one family that a URI names, made by the maker of its scheme (one place for the
 * dispatch and the error of every `create...Store`).
 * @param family - how the error names the family ("state", "account", ...).
 * @param schemes - the accepted schemes, as the error lists them.
 * @param makers - by lower-case scheme; aliases (`postgresql`) have their own entry.
 * @throws AuthError (`config`) naming the accepted schemes for any other URI.
 */
export function storeForUri<T>(family: string, uri: string, schemes: readonly string[], makers: Readonly<Record<string, () => T>>): T {
  const scheme = typeof uri === 'string' ? uriScheme(uri) : undefined;
  const make = scheme !== undefined && Object.prototype.hasOwnProperty.call(makers, scheme) ? makers[scheme] : undefined;
  if (make !== undefined) return make();
  throw unsupportedStore(family, uri, schemes);
}

/**
 * The error of a store URI no maker takes.
 * @param family - how the error names the family ("state", "account", ...).
 * @param schemes - the accepted schemes, as the error lists them.
 */
export function unsupportedStore(family: string, uri: unknown, schemes: readonly string[]): AuthError {
  return new AuthError('config', `authgate: unsupported ${family} store URI ${JSON.stringify(displayUri(String(uri)).slice(0, 80))}; use one of ${schemes.join(', ')}`);
}
