import { AuthError } from '../../plugin-kit/helpers';
import { hashId, type User } from '../../plugin-kit/sessions';
import { type PluginUsers, type OrgDirectory, grantableBy, mayActOn, rolesIn, type OrgAuthority, DIRECTORY_USER_PREFIX, takeoverRefusal } from '../../plugin-kit/plugin-api';
import type { SsoConnection } from './connection-schema';
import { domainOfAddress } from './dns-proof';
import type { SamlAssertion } from './saml-sp';
import type { SsoDomains } from './sso-domains';
import { SSO_PERMISSION } from './sso-domains';

/** Who an identity provider says the user is, whatever the protocol. */
export interface SsoIdentity {
  /** The IdP's stable id of the user (SAML NameID, OIDC `sub`). */
  subject: string;
  email?: string | undefined;
  name?: string | undefined;
  /** The groups in the connection's role attribute. */
  groups: string[];
  /** The IdP's authentication contexts or `amr` values. */
  methods: string[];
  /** What single logout names the user by (SAML): the NameID's format and the session index. */
  logout?: { format?: string | undefined; session?: string | undefined } | undefined;
}

const EMAIL_ATTRIBUTES = ['email', 'mail', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'];
const NAME_ATTRIBUTES = ['displayName', 'name', 'http://schemas.microsoft.com/identity/claims/displayname', 'urn:oid:2.16.840.1.113730.3.1.241'];
const GIVEN = ['givenName', 'firstName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname', 'urn:oid:2.5.4.42'];
const SURNAME = ['surname', 'sn', 'lastName', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname', 'urn:oid:2.5.4.4'];
const AMR_ATTRIBUTE = 'http://schemas.microsoft.com/claims/authnmethodsreferences';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

const text = (value: unknown, max = 256): string | undefined => (typeof value === 'string' && value.trim() !== '' && value.length <= max ? value.trim() : undefined);
const list = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is string => typeof v === 'string' && v !== '' && v.length <= 256).slice(0, 200);

/** The identity of a verified SAML assertion, read through the usual attribute names of Okta, Entra ID, Google and ADFS. */
export function samlIdentity(connection: SsoConnection, assertion: SamlAssertion): SsoIdentity {
  const first = (names: string[]): string | undefined => names.map((n) => text(assertion.attributes[n]?.[0])).find((v) => v !== undefined);
  const given = first(GIVEN);
  const surname = first(SURNAME);
  return {
    subject: assertion.nameId,
    email: first(EMAIL_ATTRIBUTES) ?? (assertion.nameIdFormat === EMAIL_FORMAT ? assertion.nameId : undefined),
    name: first(NAME_ATTRIBUTES) ?? ([given, surname].filter(Boolean).join(' ') || undefined),
    groups: list(assertion.attributes[connection.roles.attribute]),
    methods: [...assertion.authnContexts, ...(assertion.attributes[AMR_ATTRIBUTE] ?? [])],
    logout: { format: assertion.nameIdFormat, session: assertion.sessionIndex },
  };
}

/** The identity of verified OpenID Connect claims. */
export function oidcIdentity(connection: SsoConnection, claims: Record<string, unknown>): SsoIdentity {
  return {
    subject: String(claims.sub),
    // An address the provider has not verified is no address at all.
    email: claims.email_verified === true ? text(claims.email) : undefined,
    name: text(claims.name) ?? text(claims.preferred_username),
    groups: list(claims[connection.roles.attribute]),
    methods: list(claims.amr),
  };
}

/** The users of SSO logins that are accounts their holders linked to the directory: the IdP never stands in for their second factor. */
const linkedByConsent = new WeakSet<User>();

/**
 * Whether the IdP's methods count as two factors for this connection, and (given the `user` the
 * login resolved to) may stand in for that user's own second factor: only for the users the
 * organization made, never for an account its holder linked.
 */
export function provesTwoFactors(connection: SsoConnection, identity: SsoIdentity, user?: User): boolean {
  return identity.methods.some((m) => connection.mfaContexts.includes(m)) && !(user !== undefined && linkedByConsent.has(user));
}

/** What just-in-time provisioning needs. */
export interface ProvisionDeps {
  orgs: OrgAuthority;
  domains: SsoDomains;
  users: PluginUsers;
  /** The organization's directory of provisioned people (the SCIM plugin), when it is on. */
  directory(): OrgDirectory | undefined;
}

/**
 * The user of an SSO login, made a member of the connection's organization (just in time) with
 * the roles its groups map to. The user is the connection's own (`sso_<hash of connection and
 * subject>`): an IdP never logs into an account it did not make. Its e-mail is kept only in a
 * domain the organization verified, so an IdP cannot claim an address of another company. When the
 * organization's directory (SCIM) provisioned the person, the login is that person's user and the
 * directory owns the membership: a person it deactivated cannot sign in (403 `member_suspended`).
 */
export async function provisionUser(connection: SsoConnection, identity: SsoIdentity, deps: ProvisionDeps): Promise<User> {
  const email = identity.email !== undefined && (await ownsDomainOf(identity.email, connection.orgId, deps.domains)) ? identity.email.toLowerCase() : undefined;
  const own = hashId('sso', `${connection.id}:${identity.subject}`);
  let person = await deps.directory()?.match(connection.orgId, { subject: identity.subject, email });
  // The connection's own user of this subject, a member already, stays who it is: a directory
  // person made later under its name (which the linking policy kept apart) does not take its logins.
  if (person !== undefined && person.userId !== own && (await deps.orgs.idsOf(own)).includes(connection.orgId)) person = undefined;
  if (person?.active === false) throw new AuthError('forbidden', "your organization's directory has deactivated you: ask its administrator", { reason: 'member_suspended' });
  // A person linked to an account the organization may not take over (a link older than the
  // linking policy) is signed in as the connection's own user: never as that account.
  if (person !== undefined && !person.userId.startsWith(DIRECTORY_USER_PREFIX)) {
    const orgIds = await deps.orgs.idsOf(person.userId);
    if (takeoverRefusal(connection.orgId, { record: await deps.users.get(person.userId), orgIds, consented: person.consented }) !== undefined) person = undefined;
  }
  const id = person?.userId ?? own;
  if (await deps.users.isBanned(id)) throw new AuthError('forbidden', 'this user is banned', { reason: 'banned' });
  // The connection acts with its maker's power now: gone with a demotion (before any handler ran),
  // and never over a member the maker could not act on in the app (an admin's IdP never signs an owner in).
  const maker = connection.changedBy ?? connection.createdBy;
  if (
    !(await deps.orgs.authorize(connection.orgId, maker, SSO_PERMISSION).then(
      () => true,
      () => false,
    )) ||
    (await deps.users.isBanned(maker))
  )
    throw new AuthError('forbidden', 'this connection is disabled: the member who set it up may no longer manage single sign-on (or is banned)', { reason: 'connection_disabled' });
  if (!(await mayActOn(deps.orgs, connection.orgId, maker, id)))
    throw new AuthError('forbidden', "this connection was set up or changed last by a member below your role: an owner's review of the connection (any change) lets it sign you in", {
      reason: 'role_required',
    });
  const mapped = identity.groups.flatMap((g) => (Object.hasOwn(connection.roles.map, g) ? [connection.roles.map[g] as string] : []));
  if (person === undefined) {
    // The role map gives what the connection's maker could give in the app now, never more.
    const makerRoles = await rolesIn(deps.orgs, connection.orgId, connection.changedBy ?? connection.createdBy);
    const granted = grantableBy(deps.orgs, makerRoles, mapped.length > 0 ? mapped : [connection.roles.defaultRole]);
    await deps.orgs.provision(connection.orgId, id, granted.length > 0 ? granted : ['member'], `sso:${connection.id}`);
  }
  const attrs: Record<string, string> = { sso_org: connection.orgId, sso_connection: connection.id };
  // What a logout at the IdP names the user by (SAML single logout).
  if (identity.logout)
    Object.assign(attrs, {
      sso_subject: identity.subject,
      ...(identity.logout.format ? { sso_format: identity.logout.format } : {}),
      ...(identity.logout.session ? { sso_session: identity.logout.session } : {}),
    });
  const user: User = { id, name: identity.name ?? email ?? identity.subject, picture: '', attrs };
  if (email !== undefined) user.email = email;
  if (person?.consented === true) linkedByConsent.add(user);
  return user;
}

/** Whether `email`'s domain is one organization `orgId` verified. */
export async function ownsDomainOf(email: string, orgId: string, domains: SsoDomains): Promise<boolean> {
  const domain = domainOfAddress(email);
  return domain !== undefined && (await domains.verifiedOwner(domain)) === orgId;
}
