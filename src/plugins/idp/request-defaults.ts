import type { NextFunction, Request } from 'express';
import type { OidcProviderLike } from './oidc-types';
import { REGISTERED_PREFIX } from './registration-policy';

/**
 * Fills in the scope of an authorization request that names none (OAuth lets a client leave it
 * out, and the MCP SDK does when the API publishes no scopes): the scopes of the `resource` it asks
 * for (with `openid` for a client of the options, whose id_tokens carry `auth_time`), else a
 * registered client's own `scope` without `offline_access` (a grant that lasts is asked for by
 * name), else `openid`. Without it oidc-provider has nothing to ask the user and ends the request
 * with `access_denied`. Pushed and signed requests (`request_uri`, `request`) carry their own
 * parameters and are left as they are.
 */
export async function defaultScope(req: Request, resources: ReadonlyMap<string, { scopes: string[] }>, provider: () => Promise<OidcProviderLike>): Promise<void> {
  const url = new URL(req.url, 'http://localhost');
  const params = url.searchParams;
  if (params.has('scope') || params.has('request_uri') || params.has('request')) return;
  const clientId = params.get('client_id');
  if (clientId === null) return;
  const registered = clientId.startsWith(REGISTERED_PREFIX);
  const resource = params.get('resource');
  const fromResource = resource === null ? undefined : resources.get(resource)?.scopes;
  const own = registered ? (await (await provider()).Client.find(clientId).catch(() => undefined))?.scope : undefined;
  const scopes = fromResource !== undefined ? [...(registered ? [] : ['openid']), ...fromResource] : (own?.split(' ').filter((s) => s !== 'offline_access') ?? ['openid']);
  params.set('scope', scopes.join(' '));
  req.url = url.pathname + url.search;
}

/** Serves the request as if it had asked for `path` (a second URL of one document). */
export function forwardTo(path: string, req: Request, next: NextFunction): void {
  req.url = path;
  next();
}
