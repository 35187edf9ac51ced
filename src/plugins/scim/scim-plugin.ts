import { configError } from '../../plugin-kit/helpers';
import { DIRECTORY_EVENT_TYPES, ORG_DIRECTORY_SERVICE, VERIFIED_DOMAINS_SERVICE, ORGANIZATIONS_SERVICE, whenOrgDeleted, whenPowerLost, type AuthPlugin } from '../../plugin-kit/plugin-api';
import { openDatabase } from '../../plugin-kit/storage';
import { ScimRepository } from './scim-repository';
import { scimRouteList } from './scim-routes';
import { SCIM_PERMISSION, ScimTokens } from './scim-tokens';
import { MAX_SCIM_USERS, ScimUsers } from './scim-users';
import { ScimGroups } from './scim-groups';

/** The events the SCIM plugin fires. */
export const SCIM_EVENT_TYPES = [
  'scim.token.created',
  'scim.token.revoked',
  'scim.user.created',
  'scim.user.updated',
  'scim.user.deactivated',
  'scim.user.reactivated',
  'scim.user.deleted',
  'scim.user.linked',
  'scim.group.created',
  'scim.group.updated',
  'scim.group.deleted',
  'scim.settings.changed',
] as const;

declare module '../../core/audit/auth-event' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the SCIM events join the registry
  interface AuthEventTypes extends Record<(typeof SCIM_EVENT_TYPES)[number], true> {}
}

/** What `setup` made, once it ran; a configuration error before. */
function setUp<T>(made: T | undefined, what: string): T {
  if (made === undefined) throw configError(`scim(): its ${what} exist once createAuth({ plugins: [...] }) has set the plugin up`);
  return made;
}

/** Options of the SCIM plugin: `scim({ ... })`. */
export interface ScimOptions {
  /** Where SCIM tokens are kept: a database URI. @default the `database` of `createAuth`, else 'memory://' */
  store?: string | undefined;
  /**
   * The most users one organization's directory may provision: past it a create answers 400
   * `tooMany`. Counted as {@link ScimUsers.list}'s `totalResults` is (exact below 1,000, then
   * at most 10 seconds old for other instances' creates), so instances together may pass it by
   * what they create in those seconds. From 1 to 10,000,000.
   * @default 100000
   */
  maxUsers?: number | undefined;
}

/** The SCIM plugin, with its tokens once `createAuth` has set it up. */
export interface ScimPlugin extends AuthPlugin {
  /** The organizations' SCIM tokens, for the app's own code; throws before `createAuth` ran. */
  readonly tokens: ScimTokens;
  /** The people the organizations' directories provisioned, for the app's own code; throws before `createAuth` ran. */
  readonly users: ScimUsers;
  /** The organizations' directory groups, for the app's own code; throws before `createAuth` ran. */
  readonly groups: ScimGroups;
}

/**
 * SCIM 2.0 provisioning per organization: `createAuth({ plugins: [organizations({...}), scim()] })`.
 * An organization's admins make SCIM tokens (`/orgs/:org/scim/tokens`); its directory (Okta, Entra
 * ID) calls the SCIM service at `<auth mount>/scim/v2` with one. It answers the discovery endpoints
 * (`ServiceProviderConfig`, `ResourceTypes`, `Schemas`), `Users` and `Groups`: each user is an
 * authgate user and, while active, a member of the token's organization; each group a team of
 * it, and (as the organization maps group names) a role.
 */
export function scim(options: ScimOptions = {}): ScimPlugin {
  if (options === null || typeof options !== 'object') throw configError('scim() takes an options object (or nothing)');
  if (options.store !== undefined && (typeof options.store !== 'string' || options.store === '')) throw configError('scim: store must be a database URI');
  const maxUsers = options.maxUsers ?? MAX_SCIM_USERS;
  if (!Number.isInteger(maxUsers) || maxUsers < 1 || maxUsers > 10_000_000) throw configError('scim: maxUsers must be a whole number from 1 to 10000000');
  let tokens: ScimTokens | undefined;
  let provisioned: ScimUsers | undefined;
  let grouped: ScimGroups | undefined;
  return {
    name: 'scim',
    requires: ['organizations'],
    eventTypes: [...SCIM_EVENT_TYPES, ...DIRECTORY_EVENT_TYPES],
    rateLimits: { scimRoutesPerUser: { limit: 60, windowMs: 60_000 }, scimPerToken: { limit: 600, windowMs: 60_000 } },
    get tokens(): ScimTokens {
      return setUp(tokens, 'tokens');
    },
    get users(): ScimUsers {
      return setUp(provisioned, 'users');
    },
    get groups(): ScimGroups {
      return setUp(grouped, 'groups');
    },
    setup(ctx) {
      const orgs = ctx.service(ORGANIZATIONS_SERVICE);
      if (orgs === undefined) throw configError('scim() needs the organizations plugin');
      const repo = ctx.openStore(options.store ?? ctx.storeUri('scim'), (uri) => new ScimRepository(openDatabase(uri, 'SCIM')), 'SCIM store');
      const made = new ScimTokens(repo, orgs, ctx.events, ctx.users);
      tokens = made;
      const groups = new ScimGroups({ repo, orgs, events: ctx.events });
      const users = new ScimUsers({
        place: (user, maker) => groups.place(user, maker),
        leaveGroups: (user) => groups.leaveGroups(user),
        repo: repo.users,
        orgs,
        users: ctx.users,
        sessions: ctx.sessions,
        events: ctx.events,
        domains: () => ctx.service(VERIFIED_DOMAINS_SERVICE),
        maxUsers,
      });
      provisioned = users;
      grouped = groups;
      // A token ends with its author's power, as every grant of access does.
      whenPowerLost(ctx.events, orgs, SCIM_PERMISSION, 'scim:end-tokens', (userId, reason, orgId) => made.endTokensBy(userId, reason, orgId));
      whenOrgDeleted(
        ctx.events,
        'scim:org-deleted',
        (org) => made.orgDeleted(org),
        (org) => users.orgDeleted(org),
        (org) => groups.orgDeleted(org),
      );
      return {
        routes: scimRouteList({ tokens: made, users, groups, orgs, authenticator: ctx.authenticator, url: ctx.url, rateLimit: (name, id) => ctx.rateLimit(name, id) }),
        userEvents: {
          credentialsReset: async (userId) => {
            const n = await made.endTokensBy(userId, 'credentials_reset');
            return n === 0 ? [] : [`${n} SCIM token${n === 1 ? '' : 's'} revoked`];
          },
          userDeleted: async (userId) => void (await made.endTokensBy(userId, 'removed')),
        },
        services: { [ORG_DIRECTORY_SERVICE]: users },
        close: () => repo.close(),
      };
    },
  };
}
