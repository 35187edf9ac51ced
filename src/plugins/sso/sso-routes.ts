import { type Translations, requestClient, param } from '../../plugin-kit/helpers';
import { asyncHandler, sendJson, objectBody } from '../../plugin-kit/http';
import { type PluginAuthenticator, type PluginRoute, routeCaller } from '../../plugin-kit/plugin-api';
import type { Request } from 'express';
import type { SsoConnections } from './sso-connections';
import type { SsoDomains } from './sso-domains';
import { SETUP_CSP, setupHtml, SETUP_SCRIPT, SETUP_STYLE } from './setup/setup-assets';
import { MAX_METADATA } from './connection-input';

/** What the SSO routes need. */
export interface SsoRouteDeps {
  domains: SsoDomains;
  connections: SsoConnections;
  /** The app's public URL. */
  url: URL;
  authenticator: PluginAuthenticator;
  rateLimit(name: string, identity: string): Promise<void>;
  /** The setup page's words in the reader's language. */
  translations: Translations;
}

/**
 * An organization's domains: `GET /orgs/:org/sso/domains`, `POST` `{domain}` (a claim; 201, or 200
 * when it was claimed already), `POST /orgs/:org/sso/domains/:domain/verify`, `DELETE
 * /orgs/:org/sso/domains/:domain`. For its members holding `org:update`; every change needs a fresh
 * login with the session cookie (a verified domain decides who may sign in through SSO).
 */
export function ssoRouteList(deps: SsoRouteDeps): PluginRoute[] {
  const caller = routeCaller(deps.authenticator, deps.rateLimit, 'ssoRoutesPerUser');
  const org = (req: Request): string => param(req.params.org, 'organization');
  const authBase = (req: Request): string => `${deps.url.href.replace(/\/+$/, '')}${req.baseUrl}`;
  const connection = (req: Request): string => param(req.params.id, 'connection');
  return [
    {
      method: 'GET',
      path: '/orgs/:org/sso',
      handler: (req, res) => {
        // The page holds no data (its script asks the routes, which check everything).
        const locale = deps.translations.localeOf(req);
        const words = deps.translations.page(locale);
        const scriptWords = deps.translations.wordsUnder('page.ssoSetup.', locale);
        const html = setupHtml(words, org(req), req.baseUrl, scriptWords);
        res.setHeader('Content-Security-Policy', SETUP_CSP);
        res.status(200).type('html').send(html);
      },
    },
    { method: 'GET', path: '/sso/setup.js', handler: (_req, res) => void res.setHeader('Cache-Control', 'no-cache').type('js').send(SETUP_SCRIPT) },
    { method: 'GET', path: '/sso/setup.css', handler: (_req, res) => void res.setHeader('Cache-Control', 'no-cache').type('css').send(SETUP_STYLE) },
    {
      method: 'GET',
      path: '/orgs/:org/sso/connections',
      handler: asyncHandler(async (req, res) => sendJson(res, 200, await deps.connections.list(org(req), await caller(req, res, false), authBase(req)))),
    },
    {
      method: 'POST',
      path: '/orgs/:org/sso/connections',
      bodyLimit: MAX_METADATA + 16 * 1024,
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        sendJson(res, 201, await deps.connections.create(org(req), user, objectBody(req), authBase(req), requestClient(req)));
      }),
    },
    {
      method: 'GET',
      path: '/orgs/:org/sso/connections/:id',
      handler: asyncHandler(async (req, res) => sendJson(res, 200, await deps.connections.get(org(req), await caller(req, res, false), connection(req), authBase(req)))),
    },
    {
      method: 'PATCH',
      path: '/orgs/:org/sso/connections/:id',
      bodyLimit: MAX_METADATA + 16 * 1024,
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        sendJson(res, 200, await deps.connections.update(org(req), user, connection(req), objectBody(req), authBase(req), requestClient(req)));
      }),
    },
    {
      method: 'DELETE',
      path: '/orgs/:org/sso/connections/:id',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        await deps.connections.remove(org(req), user, connection(req), requestClient(req));
        sendJson(res, 200, { status: 'deleted' });
      }),
    },
    {
      method: 'GET',
      path: '/orgs/:org/sso/domains',
      handler: asyncHandler(async (req, res) => sendJson(res, 200, await deps.domains.list(org(req), await caller(req, res, false)))),
    },
    {
      method: 'POST',
      path: '/orgs/:org/sso/domains',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        const { created, domain } = await deps.domains.claim(org(req), user, objectBody(req).domain);
        sendJson(res, created ? 201 : 200, domain);
      }),
    },
    {
      method: 'POST',
      path: '/orgs/:org/sso/domains/:domain/verify',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        sendJson(res, 200, await deps.domains.verify(org(req), user, req.params.domain, requestClient(req)));
      }),
    },
    {
      method: 'PATCH',
      path: '/orgs/:org/sso/domains/:domain',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        const hasConnection = async (orgId: string): Promise<boolean> => (await deps.connections.enabledOf(orgId)).length > 0;
        sendJson(res, 200, await deps.domains.enforce(org(req), user, req.params.domain, objectBody(req).enforce, hasConnection, requestClient(req)));
      }),
    },
    {
      method: 'DELETE',
      path: '/orgs/:org/sso/domains/:domain',
      handler: asyncHandler(async (req, res) => {
        const user = await caller(req, res, true);
        await deps.domains.remove(org(req), user, req.params.domain, requestClient(req));
        sendJson(res, 200, { status: 'deleted' });
      }),
    },
  ];
}
