import { createHash, X509Certificate } from 'node:crypto';
import { AuthError, randomId, type SecretBox } from '../../plugin-kit/helpers';
import { allDocs } from '../../plugin-kit/storage';
import type { User } from '../../plugin-kit/sessions';
import { OidcDiscovery } from '../../plugin-kit/providers';
import { safeFetch } from '../../plugin-kit/http';
import { type PluginEvents, OWNER, rolesIn, type OrgAuthority } from '../../plugin-kit/plugin-api';
import { checkIdpUrl, commonFields, MAX_METADATA, oidcSettings, roleMapping, samlSettings } from './connection-input';
import type { SsoConnection } from './connection-schema';
import { SamlServiceProvider, spUrls } from './saml-sp';
import { SSO_PERMISSION } from './sso-domains';
import { MAX_CONNECTIONS_PER_ORG, type SsoRepository } from './sso-repository';
import { makeSpKeys } from './sp-keys';

/** A connection as its organization's admins see it: settings, the values to give the IdP, never a secret. */
export interface ConnectionView {
  id: string;
  kind: 'saml' | 'oidc';
  name: string;
  enabled: boolean;
  roles: SsoConnection['roles'];
  mfaContexts: string[];
  created: number;
  updated: number;
  /** The IdP's side (SAML), with each certificate's SHA-256 fingerprint and end of validity. */
  saml?: Omit<NonNullable<SsoConnection['saml']>, 'certificates'> & { certificates: Array<{ fingerprint: string; notAfter: string; subject: string }> };
  /** The provider's side (OpenID Connect); the secret is never shown. */
  oidc?: { issuer: string; clientId: string };
  /** What the customer's IT enters at its IdP (SAML): entity id, ACS URL, logout URL, metadata URL, certificate. */
  serviceProvider?: { entityId: string; acsUrl: string; sloUrl: string; metadataUrl: string; certificate: string };
  /** The redirect URI to register at the provider (OpenID Connect). */
  redirectUri?: string;
  /** Where a person starts a login through this connection. */
  loginUrl: string;
}

/** How the plugin's connections reach the outside. */
export interface ConnectionLimits {
  /** Origins on private or loopback addresses that IdP URLs may use (http allowed there). */
  privateOrigins: readonly string[];
  /** Clock skew allowed on the IdP's times (ms). */
  skewMs: number;
  /** The SAML packages this server lacks (SAML connections are refused while any is missing). @default [] */
  samlMissing?: readonly string[] | undefined;
}

const notFound = (): AuthError => new AuthError('not_found', 'no such connection in this organization');

function certInfo(base64: string): { fingerprint: string; notAfter: string; subject: string } {
  const cert = new X509Certificate(Buffer.from(base64, 'base64'));
  return { fingerprint: createHash('sha256').update(cert.raw).digest('hex').match(/../g)!.join(':').toUpperCase(), notAfter: new Date(cert.validTo).toISOString(), subject: cert.subject };
}

/**
 * An organization's connections to its identity providers: created, changed and deleted by its
 * admins (`org:update`, a fresh login for every change), each SAML one with a key pair of its own.
 */
export class SsoConnections {
  /**
   * Made by the plugin.
   * @internal
   */
  constructor(
    private readonly repo: SsoRepository,
    private readonly orgs: OrgAuthority,
    private readonly box: SecretBox,
    private readonly events: PluginEvents,
    private readonly limits: ConnectionLimits,
  ) {}

  private async orgOf(ref: string, user: User): Promise<{ id: string; roles: readonly string[] }> {
    const { org, roles } = await this.orgs.authorize(ref, user.id, SSO_PERMISSION);
    return { id: org.id, roles };
  }

  /** The connection as admins see it, with its URLs below `authBase` (the auth router's public URL). */
  view(c: SsoConnection, authBase: string): ConnectionView {
    const urls = spUrls(authBase, c.id);
    const shown: ConnectionView = {
      id: c.id,
      kind: c.kind,
      name: c.name,
      enabled: c.enabled,
      roles: c.roles,
      mfaContexts: c.mfaContexts,
      created: c.created,
      updated: c.updated,
      loginUrl: `${authBase}/sso/login?connection=${c.id}`,
    };
    if (c.saml) {
      shown.saml = { ...c.saml, certificates: c.saml.certificates.map(certInfo) };
      shown.serviceProvider = { entityId: urls.entityId, acsUrl: urls.acsUrl, sloUrl: urls.sloUrl, metadataUrl: urls.entityId, certificate: c.sp?.certificate ?? '' };
    }
    if (c.oidc) {
      shown.oidc = { issuer: c.oidc.issuer, clientId: c.oidc.clientId };
      shown.redirectUri = `${authBase}/sso/oidc/${c.id}`;
    }
    return shown;
  }

  /** The organization's connections. */
  async list(ref: string, user: User, authBase: string): Promise<ConnectionView[]> {
    return (await this.repo.connectionsOf((await this.orgOf(ref, user)).id)).map((c) => this.view(c, authBase));
  }

  /** One connection of the organization. */
  async get(ref: string, user: User, id: string, authBase: string): Promise<ConnectionView> {
    return this.view(await this.own((await this.orgOf(ref, user)).id, id), authBase);
  }

  private async own(orgId: string, id: string): Promise<SsoConnection> {
    const found = await this.repo.connections.get(id);
    if (found === undefined || found.orgId !== orgId) throw notFound();
    return found;
  }

  /** The IdP metadata at `url`, through the SSRF guard (no private address unless allowed, a size cap, a time limit). */
  private async fetchMetadata(url: unknown): Promise<string> {
    const href = checkIdpUrl(url, 'metadataUrl', this.limits.privateOrigins);
    try {
      const body = await safeFetch(href, {
        timeoutMs: 10_000,
        maxBytes: MAX_METADATA,
        allowPrivateNetworks: false,
        allowedPrivateOrigins: this.limits.privateOrigins,
        maxRedirects: 3,
        accept: 'application/samlmetadata+xml, application/xml, text/xml',
      });
      return body.toString('utf8');
    } catch {
      throw new AuthError('bad_request', 'the metadata URL could not be read (it must be public, answer within 10 s and hold at most 512 KB)');
    }
  }

  /** Reads the issuer's discovery document now, through the SSRF guard: a wrong issuer is the admin's 400, not a user's failed login. */
  private async checkIssuer(issuer: string): Promise<void> {
    try {
      await new OidcDiscovery(issuer, 0, 10_000, { allowedPrivateOrigins: this.limits.privateOrigins }).metadata();
    } catch {
      throw new AuthError('bad_request', `the issuer's discovery document (${issuer}/.well-known/openid-configuration) could not be read: it must be public, answer within 10 s and name this issuer`);
    }
  }

  private async settings(
    body: Record<string, unknown>,
    roles: readonly string[],
    kind: 'saml' | 'oidc',
    before?: SsoConnection,
  ): Promise<Pick<SsoConnection, 'saml' | 'oidc' | 'roles' | 'name' | 'enabled' | 'mfaContexts'>> {
    const common = commonFields(body, before);
    const mapping = roleMapping(body.roles, before?.roles);
    // An admin maps the IdP's groups only to roles they could grant themselves.
    this.orgs.checkGrantable(roles, [mapping.defaultRole, ...Object.values(mapping.map)]);
    if (kind === 'saml') {
      const fetched = body.metadataUrl === undefined ? undefined : await this.fetchMetadata(body.metadataUrl);
      return { ...common, roles: mapping, saml: samlSettings(body, fetched, this.limits.privateOrigins, before?.saml) };
    }
    const beforeOidc = before?.oidc ? { ...before.oidc, clientSecret: this.unseal(before.oidc.clientSecret) } : undefined;
    const oidc = oidcSettings(body, this.limits.privateOrigins, beforeOidc);
    if (oidc.issuer !== before?.oidc?.issuer) await this.checkIssuer(oidc.issuer);
    return { ...common, roles: mapping, oidc: { ...oidc, clientSecret: this.box.seal(oidc.clientSecret) } };
  }

  /** Creates a connection: `{ kind: 'saml' | 'oidc', name, ... }` (see the SSO guide for the fields). */
  async create(ref: string, user: User, body: Record<string, unknown>, authBase: string, client: { ip?: string; userAgent?: string | undefined }): Promise<ConnectionView> {
    const org = await this.orgOf(ref, user);
    const kind = body.kind;
    if (kind !== 'saml' && kind !== 'oidc') throw new AuthError('bad_request', "kind must be 'saml' or 'oidc'");
    const missing = this.limits.samlMissing ?? [];
    if (kind === 'saml' && missing.length > 0)
      throw new AuthError('bad_request', `SAML connections need packages this server lacks (its operator runs npm install ${missing.join(' ')}): use OpenID Connect, or ask them`, {
        reason: 'saml_invalid',
      });
    if ((await this.repo.connectionsOf(org.id)).length >= MAX_CONNECTIONS_PER_ORG)
      throw new AuthError('conflict', `an organization has at most ${MAX_CONNECTIONS_PER_ORG} connections`, { reason: 'limit_reached' });
    const id = `sso_${randomId(12)}`;
    const now = Date.now();
    const settings = await this.settings(body, org.roles, kind);
    const sp = kind === 'saml' ? await makeSpKeys(id) : undefined;
    const connection: SsoConnection = {
      id,
      orgId: org.id,
      kind,
      ...settings,
      ...(sp ? { sp: { key: this.box.seal(sp.privateKey), certificate: sp.certificate } } : {}),
      created: now,
      createdBy: user.id,
      updated: now,
    };
    await this.repo.connections.insert(connection);
    this.events.emit({ type: 'sso.connection.created', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: org.id, connection: id, kind } }, client);
    return this.view(connection, authBase);
  }

  /** Changes a connection's settings (the same fields as at creation; `kind` stays). */
  async update(ref: string, user: User, id: string, body: Record<string, unknown>, authBase: string, client: { ip?: string; userAgent?: string | undefined }): Promise<ConnectionView> {
    const org = await this.orgOf(ref, user);
    const before = await this.own(org.id, id);
    if (body.kind !== undefined && body.kind !== before.kind) throw new AuthError('bad_request', 'a connection keeps its kind: create another one');
    const settings = await this.settings(body, org.roles, before.kind, before);
    if (before.enabled && !settings.enabled) await this.keepsOneEnforced(org.id, id);
    if (!before.enabled && settings.enabled && before.disabledFor !== undefined && !org.roles.includes(OWNER))
      throw new AuthError('forbidden', 'this connection was disabled when its author lost power: only an owner enables it again', { reason: 'role_required' });
    const saved = await this.repo.connections.update(id, (c) => ({ ...c, ...settings, disabledFor: settings.enabled ? undefined : c.disabledFor, updated: Date.now(), changedBy: user.id }));
    if (saved === undefined) throw notFound();
    this.events.emit({ type: 'sso.connection.updated', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: org.id, connection: id, fields: Object.keys(body).slice(0, 20) } }, client);
    return this.view(saved, authBase);
  }

  /** Deletes a connection: its logins stop at once (sessions it made live on until they end or are revoked). */
  async remove(ref: string, user: User, id: string, client: { ip?: string; userAgent?: string | undefined }): Promise<void> {
    const org = await this.orgOf(ref, user);
    const before = await this.own(org.id, id);
    if (before.enabled) await this.keepsOneEnforced(org.id, id);
    if ((await this.repo.connections.delete(id)) === undefined) throw notFound();
    this.events.emit({ type: 'sso.connection.deleted', userId: user.id, actor: { kind: 'user', id: user.id }, data: { org: org.id, connection: id } }, client);
  }

  /** An organization that enforces SSO keeps an enabled connection besides `leaving`: else its people could not sign in at all. */
  private async keepsOneEnforced(orgId: string, leaving: string): Promise<void> {
    if (!(await this.repo.enforcesAny(orgId))) return;
    if ((await this.enabledOf(orgId)).some((c) => c.id !== leaving)) return;
    throw new AuthError('conflict', 'this is the last enabled connection of a domain that enforces single sign-on: turn enforcement off first');
  }

  /** A connection by id, for a login (any organization). */
  byId(id: string): Promise<SsoConnection | undefined> {
    return /^sso_[0-9a-f]{24}$/.test(id) ? this.repo.connections.get(id) : Promise.resolve(undefined);
  }

  /** The organization's enabled connections. */
  async enabledOf(orgId: string): Promise<SsoConnection[]> {
    return (await this.repo.connectionsOf(orgId)).filter((c) => c.enabled);
  }

  /** The SAML service provider of a connection, below `authBase`. */
  serviceProvider(c: SsoConnection, authBase: string): SamlServiceProvider {
    if (!c.saml || !c.sp) throw new AuthError('bad_request', 'this connection is not a SAML connection');
    return new SamlServiceProvider(c.saml, { privateKey: this.unseal(c.sp.key), certificate: c.sp.certificate }, spUrls(authBase, c.id), this.limits.skewMs);
  }

  /** The client secret of an OpenID Connect connection, in clear. */
  clientSecret(c: SsoConnection): string {
    return this.unseal(c.oidc?.clientSecret ?? '');
  }

  /**
   * The author's power is gone (`reason`: a credential reset, a ban, their removal from organization
   * `orgId` or their demotion there): every enabled connection they made or changed last is
   * disabled, and an organization left with none stops enforcing SSO (its people sign in as before).
   * In `orgId`, a connection they made that another member changed later goes too, unless that
   * member is an owner now: only an owner's change adopts a connection (an admin the connection
   * itself made admin cannot keep it alive). How many were disabled.
   */
  async endChangesBy(userId: string, reason: 'credentials_reset' | 'banned' | 'removed' | 'demoted', orgId?: string): Promise<number> {
    let disabled = 0;
    const candidates = orgId === undefined ? await allDocs(this.repo.connections, 'author', `${userId}\u0000`) : await this.repo.connectionsOf(orgId);
    for (const c of candidates) {
      const changedLast = (c.changedBy ?? c.createdBy) === userId;
      if (!c.enabled || !(changedLast || c.createdBy === userId) || (orgId !== undefined && c.orgId !== orgId)) continue;
      if (!changedLast && (await rolesIn(this.orgs, c.orgId, c.changedBy as string)).includes(OWNER)) continue;
      const saved = await this.repo.connections.update(c.id, (now) => (now.enabled ? { ...now, enabled: false, disabledFor: reason, updated: Date.now() } : undefined));
      if (saved === undefined) continue;
      disabled++;
      this.events.emit({ type: 'sso.connection.disabled', userId, actor: { kind: 'system' }, data: { org: c.orgId, connection: c.id, reason } });
      if ((await this.enabledOf(c.orgId)).length === 0) await this.stopEnforcing(c.orgId);
    }
    return disabled;
  }

  private async stopEnforcing(orgId: string): Promise<void> {
    for (const claim of await this.repo.ofOrg(orgId)) {
      if (claim.enforce !== true) continue;
      await this.repo.setEnforce(claim.id, false);
      this.events.emit({ type: 'sso.domain.enforced', actor: { kind: 'system' }, data: { org: orgId, domain: claim.domain, enforce: false } });
    }
  }

  /** A sealed key or secret in clear; a 503 that says why when it was sealed with another `sso({ key })`. */
  private unseal(sealed: string): string {
    try {
      return this.box.open(sealed);
    } catch (err) {
      throw new AuthError('unavailable', "this connection's keys were sealed with another sso({ key }): start with the key it was made with, or make the connection again", { cause: err });
    }
  }

  /** An organization is gone: its connections go. */
  async orgDeleted(orgId: string): Promise<void> {
    for (const c of await this.repo.connectionsOf(orgId)) await this.repo.connections.delete(c.id);
  }
}
