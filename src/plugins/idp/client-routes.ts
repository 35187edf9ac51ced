import type { PluginRoute, PluginAuthenticator, PluginEvents } from '../../plugin-kit/plugin-api';
import { AuthError, nameField, requestClient } from '../../plugin-kit/helpers';
import { asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import type { Claims, User } from '../../plugin-kit/sessions';
import type { ClientRegistry } from './client-registry';

function uris(value: unknown, field: string, required: boolean): string[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value) || (required && value.length === 0) || value.length > 20 || value.some((u) => typeof u !== 'string' || u.length > 2000))
    throw new AuthError('bad_request', `${field} must be a list of 1 to 20 URLs`);
  for (const u of value as string[]) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw new AuthError('bad_request', `${field}: ${JSON.stringify(u.slice(0, 100))} is not an absolute URL`);
    }
    if (parsed.hash !== '') throw new AuthError('bad_request', `${field}: a URL has no fragment`);
  }
  return [...new Set(value as string[])];
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new AuthError('bad_request', `${field} is true or false`);
  return value;
}

/**
 * `GET /idp/clients`, `POST /idp/clients {name, type, redirectUris, postLogoutRedirectUris?,
 * backchannelLogoutUri?, trusted?, deviceFlow?, applicationType?}` (a fresh login: a client can
 * obtain tokens for users) and `DELETE /idp/clients/:clientId` (a fresh login too: it ends every
 * grant of the client): the clients admins register at run
 * time. Admins only (403 otherwise, and never an impersonated session).
 */
export function clientRouteList(deps: {
  registry: ClientRegistry;
  authenticator: PluginAuthenticator;
  isAdmin(user: User, claims: Claims): boolean;
  rateLimit(name: string, id: string): Promise<void>;
  events: PluginEvents;
}): PluginRoute[] {
  const { registry, authenticator } = deps;
  const admin = async (claims: Claims): Promise<User> => {
    const user = claims.user as User;
    if (claims.act !== undefined || !deps.isAdmin(user, claims)) throw new AuthError('forbidden', 'admin access required', { reason: 'forbidden' });
    await deps.rateLimit('idpClientRoutesPerUser', user.id);
    return user;
  };
  return [
    {
      method: 'GET',
      path: '/idp/clients',
      handler: asyncHandler(async (req, res) => {
        await admin(await authenticator.tokenClaims(req, res));
        sendJson(res, 200, await registry.list());
      }),
    },
    {
      method: 'POST',
      path: '/idp/clients',
      handler: asyncHandler(async (req, res) => {
        const user = await admin(await authenticator.tokenClaims(req, res));
        const body = objectBody(req);
        if (body.type !== 'confidential' && body.type !== 'public')
          throw new AuthError('bad_request', "type is 'confidential' (a server that keeps a secret) or 'public' (a native app, a CLI, a browser app)");
        if (body.applicationType !== undefined && body.applicationType !== 'web' && body.applicationType !== 'native') throw new AuthError('bad_request', "applicationType is 'web' or 'native'");
        if (body.backchannelLogoutUri !== undefined && typeof body.backchannelLogoutUri !== 'string') throw new AuthError('bad_request', 'backchannelLogoutUri must be a URL');
        const input = {
          name: nameField(body.name, 'name'),
          type: body.type,
          redirectUris: uris(body.redirectUris, 'redirectUris', true),
          postLogoutRedirectUris: uris(body.postLogoutRedirectUris, 'postLogoutRedirectUris', false),
          ...(typeof body.backchannelLogoutUri === 'string' ? { backchannelLogoutUri: uris([body.backchannelLogoutUri], 'backchannelLogoutUri', true)[0] as string } : {}),
          trusted: flag(body.trusted, 'trusted'),
          deviceFlow: flag(body.deviceFlow, 'deviceFlow'),
          applicationType: (body.applicationType ?? 'web') as 'web' | 'native',
        } as const;
        await authenticator.stepUpClaims(req, res);
        const made = await registry.register(user.id, input);
        deps.events.emit(
          { type: 'idp.client.registered', actor: { kind: 'admin', id: user.id }, data: { client: made.clientId, name: made.name, type: made.type, trusted: made.trusted } },
          requestClient(req),
        );
        res.setHeader('Cache-Control', 'no-store');
        sendJson(res, 201, made);
      }),
    },
    {
      method: 'DELETE',
      path: '/idp/clients/:clientId',
      handler: asyncHandler(async (req, res) => {
        // Removing a client ends every grant of it: a fresh login with the session cookie, as registering one.
        const user = await admin(await authenticator.stepUpClaims(req, res));
        const clientId = String(req.params.clientId);
        await registry.remove(clientId);
        deps.events.emit({ type: 'idp.client.removed', actor: { kind: 'admin', id: user.id }, data: { client: clientId } }, requestClient(req));
        sendJson(res, 200, { status: 'deleted' });
      }),
    },
  ];
}
