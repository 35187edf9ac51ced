import { AuthError } from '../errors';

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
  if (rest.includes('?')) throw new AuthError('config', `authgate: store URI ${uri} takes no query parameters`);
  const path = decodeURIComponent(rest);
  if (path === '' || path === '/') throw new AuthError('config', `authgate: store URI ${uri} needs a folder path, e.g. ${example}`);
  return path;
}
