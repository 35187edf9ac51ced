import { ORG_MESSAGES } from './org-messages';
import { configError, positiveMs, type Sender } from '../../plugin-kit/helpers';
import type { MaybePromise, User } from '../../plugin-kit/sessions';
import type { OrgStore } from './org-store';
import { RoleBook } from './roles';

/** Options of the organizations plugin: `organizations({ sender, ... })`. */
export interface OrganizationOptions {
  /** Delivers invitation mails (an `EmailSender`; `senderFunc` that logs, in development). */
  sender: Sender;
  /**
   * Where organizations live: `memory://` (nothing survives a restart), `level:///path`, or shared
   * by instances `postgres://user@host/db?schema=app`, `mongodb://host/db?org_db=&org_coll=`; or a store object.
   * @default the `database` of `createAuth`, else 'memory://'
   */
  store?: OrgStore | string | undefined;
  /**
   * The app's roles and their permissions, besides `owner` (everything), `admin` (everything but
   * deleting the organization) and `member` (reading). Naming `admin` or `member` adds permissions to them.
   * @default {}
   */
  roles?: Readonly<Record<string, readonly string[]>> | undefined;
  /** How long an invitation may be accepted, in ms. @default 604800000 (7 days) */
  invitationTtl?: number | undefined;
  /**
   * The link mailed to the invited address. The token goes in the fragment, which browsers do not
   * send to servers (no token in access logs); the page posts it to `POST /orgs/invitations/accept`.
   * @default `<url>/#invitation=<token>`
   */
  invitationLink?: ((token: string) => string) | undefined;
  /**
   * The invitation mail; fields `{{.Org}}`, `{{.Role}}`, `{{.Link}}`, `{{.Site}}`, `{{.Expires}}`
   * (HTML-escaped for a `text/html` sender).
   * @default a short plain-text invitation
   */
  invitationTemplate?: string | undefined;
  /** Who may create organizations. @default everyone logged in */
  allowCreate?: ((user: User) => MaybePromise<boolean>) | undefined;
  /**
   * The most members of one organization (each new member then costs a count of the
   * organization's members, which grows with it). From 1 to 10,000,000.
   * @default no limit
   */
  maxMembers?: number | undefined;
  /** The most organizations one user may be a member of (creating or joining). @default 100 */
  maxOrgsPerUser?: number | undefined;
  /** The most pending invitations of one organization. @default 100 */
  maxInvitations?: number | undefined;
  /** The most teams of one organization. @default 100 */
  maxTeams?: number | undefined;
}

/** The default of {@link OrganizationOptions.invitationTemplate} in English (other languages: the translations' `mail.invitation`). */
export const DEFAULT_INVITATION_TEMPLATE: string = ORG_MESSAGES.en!['mail.invitation']!;

/** {@link OrganizationOptions} checked, with defaults. */
export interface ResolvedOrganizationOptions {
  sender: Sender;
  /** As given; absent: the `database` of `createAuth`. */
  store: OrgStore | string | undefined;
  roles: RoleBook;
  invitationTtl: number;
  invitationLink: ((token: string) => string) | undefined;
  /** As given; absent: the translations' `mail.invitation` in the inviter's language. */
  invitationTemplate: string | undefined;
  allowCreate: ((user: User) => MaybePromise<boolean>) | undefined;
  maxMembers: number | undefined;
  maxOrgsPerUser: number;
  maxInvitations: number;
  maxTeams: number;
}

function limit<F extends number | undefined>(name: string, value: number | undefined, fallback: F, most = 100_000): number | F {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > most) throw configError(`organizations.${name} must be a whole number from 1 to ${most}`);
  return value;
}

/** Checks {@link OrganizationOptions} at once (a mistake fails at start-up). */
export function checkOrganizationOptions(options: OrganizationOptions): ResolvedOrganizationOptions {
  if (options === null || typeof options !== 'object') throw configError('organizations() needs its options: organizations({ sender })');
  if (typeof options.sender?.send !== 'function') {
    throw configError('organizations.sender is required: it mails invitations (an EmailSender, or senderFunc((to, text) => console.log(to, text)) in development)');
  }
  const store = options.store;
  if (store !== undefined && typeof store !== 'string' && typeof (store as Partial<OrgStore>).update !== 'function') throw configError('organizations.store must be a store URI or an OrgStore');
  for (const [name, fn] of [
    ['invitationLink', options.invitationLink],
    ['allowCreate', options.allowCreate],
  ] as const) {
    if (fn !== undefined && typeof fn !== 'function') throw configError(`organizations.${name} must be a function`);
  }
  if (options.invitationTemplate !== undefined && (typeof options.invitationTemplate !== 'string' || !/\{\{\s*\.Link\s*\}\}/.test(options.invitationTemplate))) {
    throw configError('organizations.invitationTemplate must be a text with the {{.Link}} field');
  }
  return {
    sender: options.sender,
    store,
    roles: new RoleBook(options.roles),
    invitationTtl: positiveMs('organizations.invitationTtl', options.invitationTtl, 7 * 24 * 3_600_000),
    invitationLink: options.invitationLink,
    invitationTemplate: options.invitationTemplate,
    allowCreate: options.allowCreate,
    maxMembers: limit('maxMembers', options.maxMembers, undefined, 10_000_000),
    maxOrgsPerUser: limit('maxOrgsPerUser', options.maxOrgsPerUser, 100),
    maxInvitations: limit('maxInvitations', options.maxInvitations, 100),
    maxTeams: limit('maxTeams', options.maxTeams, 100),
  };
}
