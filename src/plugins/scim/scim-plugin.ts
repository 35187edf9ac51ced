import { configError } from '../../core/errors';
import { ORGANIZATIONS_SERVICE } from '../../plugin-api/org-keys';
import type { AuthPlugin } from '../../plugin-api/plugin';
import { openDatabase } from '../../stores/open-database';
import { ScimRepository } from './scim-repository';
import { scimRouteList } from './scim-routes';
import { ScimTokens } from './scim-tokens';

/** The events the SCIM plugin fires. */
export const SCIM_EVENT_TYPES = ['scim.token.created', 'scim.token.revoked'] as const;

declare module '../../core/audit/auth-event' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the SCIM events join the registry
  interface AuthEventTypes extends Record<(typeof SCIM_EVENT_TYPES)[number], true> {}
}

/** Options of the SCIM plugin: `scim({ ... })`. */
export interface ScimOptions {
  /** Where SCIM tokens are kept: a database URI. @default the `database` of `createAuth`, else 'memory://' */
  store?: string;
}

/** The SCIM plugin, with its tokens once `createAuth` has set it up. */
export interface ScimPlugin extends AuthPlugin {
  /** The organizations' SCIM tokens, for the app's own code; throws before `createAuth` ran. */
  readonly tokens: ScimTokens;
}

/**
 * SCIM 2.0 provisioning per organization: `createAuth({ plugins: [organizations({...}), scim()] })`.
 * An organization's admins make SCIM tokens (`/orgs/:org/scim/tokens`); its directory (Okta, Entra
 * ID) calls the SCIM service at `<auth mount>/scim/v2` with one. This release: the tokens and the
 * discovery endpoints (`ServiceProviderConfig`, `ResourceTypes`, `Schemas`).
 */
export function scim(options: ScimOptions = {}): ScimPlugin {
  if (options === null || typeof options !== 'object') throw configError('scim() takes an options object (or nothing)');
  if (options.store !== undefined && (typeof options.store !== 'string' || options.store === '')) throw configError('scim: store must be a database URI');
  let tokens: ScimTokens | undefined;
  return {
    name: 'scim',
    requires: ['organizations'],
    eventTypes: SCIM_EVENT_TYPES,
    rateLimits: { scimRoutesPerUser: { limit: 60, windowMs: 60_000 }, scimPerToken: { limit: 600, windowMs: 60_000 } },
    get tokens(): ScimTokens {
      if (tokens === undefined) throw configError('scim(): its tokens exist once createAuth({ plugins: [...] }) has set the plugin up');
      return tokens;
    },
    setup(ctx) {
      const orgs = ctx.service(ORGANIZATIONS_SERVICE);
      if (orgs === undefined) throw configError('scim() needs the organizations plugin');
      const repo = ctx.openStore(options.store ?? ctx.storeUri('scim'), (uri) => new ScimRepository(openDatabase(uri, 'SCIM')), 'SCIM store');
      const made = new ScimTokens(repo, orgs, ctx.events);
      tokens = made;
      // A token ends with its author's power, as every grant of access does.
      ctx.events.on('user.banned', async (e) => void (e.userId !== undefined ? await made.endTokensBy(e.userId, 'banned') : undefined));
      ctx.events.on('org.member.removed', async (e) => {
        if (e.userId !== undefined && typeof e.data.org === 'string') await made.endTokensBy(e.userId, 'removed', e.data.org);
      });
      ctx.events.on('org.deleted', async (e) => void (typeof e.data.org === 'string' ? await made.orgDeleted(e.data.org) : undefined));
      return {
        routes: scimRouteList({ tokens: made, authenticator: ctx.authenticator, url: ctx.url, rateLimit: (name, id) => ctx.rateLimit(name, id) }),
        userEvents: {
          credentialsReset: async (userId) => {
            const n = await made.endTokensBy(userId, 'credentials_reset');
            return n === 0 ? [] : [`${n} SCIM token${n === 1 ? '' : 's'} revoked`];
          },
          userDeleted: async (userId) => void (await made.endTokensBy(userId, 'removed')),
        },
        close: () => repo.close(),
      };
    },
  };
}
