import type { PluginRoute, PluginAuthenticator, PluginEvents } from '../../plugin-kit/plugin-api';
import { AuthError, requestClient } from '../../plugin-kit/helpers';
import { asyncHandler, sendJson } from '../../plugin-kit/http';
import type { StateStore } from '../../plugin-kit/state';
import type { User } from '../../plugin-kit/sessions';
import type { IdpClient } from './idp-options';
import { grantsOf, revokeGrants } from './grants';
import { StateAdapter } from './state-adapter';

/** A grant as its user sees it. */
interface GrantRecord {
  clientId?: string;
  iat?: number;
  openid?: { scope?: string };
}

const never = (): Error => new Error('not used');

/**
 * `GET /apps`: the apps the user let in through the identity provider (name, scopes, since);
 * `DELETE /apps/:clientId`: takes that back, with every token the app holds (its next refresh fails).
 */
export function appRouteList(deps: { state: StateStore; authenticator: PluginAuthenticator; clientOf(clientId: string): Promise<IdpClient | undefined>; events: PluginEvents }): PluginRoute[] {
  return [
    {
      method: 'GET',
      path: '/apps',
      handler: asyncHandler(async (req, res) => {
        const user = (await deps.authenticator.tokenClaims(req, res)).user as User;
        const grants = new StateAdapter('Grant', deps.state, never);
        const apps = new Map<string, { clientId: string; name: string; scopes: Set<string>; since: number }>();
        for (const g of await grantsOf(deps.state, user.id)) {
          const record = (await grants.find(g.grantId)) as GrantRecord | undefined;
          if (record === undefined) continue;
          const app = apps.get(g.clientId) ?? { clientId: g.clientId, name: (await deps.clientOf(g.clientId))?.name ?? g.clientId, scopes: new Set<string>(), since: (record.iat ?? 0) * 1000 };
          for (const s of (record.openid?.scope ?? '').split(' ')) if (s !== '') app.scopes.add(s);
          app.since = Math.min(app.since || Infinity, (record.iat ?? 0) * 1000);
          apps.set(g.clientId, app);
        }
        sendJson(
          res,
          200,
          [...apps.values()].map((a) => ({ ...a, scopes: [...a.scopes] })),
        );
      }),
    },
    {
      method: 'DELETE',
      path: '/apps/:clientId',
      handler: asyncHandler(async (req, res) => {
        const user = (await deps.authenticator.tokenClaims(req, res)).user as User;
        const clientId = req.params.clientId;
        if (typeof clientId !== 'string' || (await revokeGrants(deps.state, user.id, clientId)).length === 0) throw new AuthError('not_found', 'no such app among yours');
        deps.events.emit({ type: 'idp.app.revoked', userId: user.id, actor: { kind: 'user', id: user.id }, data: { client: clientId } }, requestClient(req));
        sendJson(res, 200, { status: 'revoked' });
      }),
    },
  ];
}
