import { AuthError } from '../../plugin-kit/helpers';
import type { User } from '../../plugin-kit/sessions';
import { asyncHandler, sendJson } from '../../plugin-kit/http';
import type { AdminAuthority, PluginAuthenticator, OrgAuthority, PluginRoute } from '../../plugin-kit/plugin-api';
import type { SsoRepository } from './sso-repository';

/** The most organizations the admin console's SSO list shows. */
const LISTED = 500;

/** One organization's SSO, as the admin console lists it. */
export interface OrgSsoSummary {
  org: string;
  name: string;
  domains: Array<{ domain: string; verified: boolean; enforce: boolean }>;
  connections: Array<{ id: string; name: string; kind: 'saml' | 'oidc'; enabled: boolean }>;
}

/**
 * `GET /admin/sso` for the admin console: every organization's domains and connections (no
 * secret), for the app's admins. Only when the admin plugin is on.
 */
export function adminSsoRoutes(admin: AdminAuthority | undefined, repo: SsoRepository, orgs: OrgAuthority, authenticator: PluginAuthenticator): PluginRoute[] {
  if (admin === undefined) return [];
  return [
    {
      method: 'GET',
      path: '/admin/sso',
      handler: asyncHandler(async (req, res) => {
        const claims = await authenticator.tokenClaims(req, res);
        if (!admin.isAdmin(claims.user as User, claims)) throw new AuthError('forbidden', 'admin access required');
        const { domains, connections } = await repo.everything(LISTED);
        const byOrg = new Map<string, OrgSsoSummary>();
        const of = (orgId: string): OrgSsoSummary => byOrg.get(orgId) ?? byOrg.set(orgId, { org: orgId, name: orgId, domains: [], connections: [] }).get(orgId)!;
        for (const d of domains) of(d.orgId).domains.push({ domain: d.domain, verified: d.verified !== undefined, enforce: d.enforce === true });
        for (const c of connections) of(c.orgId).connections.push({ id: c.id, name: c.name, kind: c.kind, enabled: c.enabled });
        for (const summary of byOrg.values()) summary.name = (await orgs.lookup(summary.org))?.name ?? summary.org;
        sendJson(res, 200, [...byOrg.values()]);
      }),
    },
  ];
}
