import type { Schema } from '../../plugin-kit/storage';

/** How a SAML connection reaches its identity provider. */
export interface SamlSettings {
  /** The IdP's entity id: the `Issuer` its assertions must carry. */
  idpEntityId: string;
  /** Where AuthnRequests go (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Where logout requests go, when the IdP has single logout. */
  sloUrl?: string | undefined;
  /** The IdP's signing certificates (base64 DER); any one of them may sign (rotation). */
  certificates: string[];
  /** Logins the IdP starts without a request of ours are accepted. @default false */
  allowIdpInitiated: boolean;
  /** Where an IdP-initiated login may land (paths of the app); the first is the default. */
  idpInitiatedPaths: string[];
}

/** How an OpenID Connect connection reaches its provider. */
export interface OidcSettings {
  /** The issuer, as its discovery document names it. */
  issuer: string;
  clientId: string;
  /** The client secret, sealed with the plugin's key. */
  clientSecret: string;
}

/** How the groups the IdP sends become the organization's roles. */
export interface RoleMapping {
  /** The attribute (SAML) or claim (OIDC) holding the user's groups. @default 'groups' */
  attribute: string;
  /** Group name → role; a user in several mapped groups gets each role. */
  map: Record<string, string>;
  /** The role of a user in no mapped group. @default 'member' */
  defaultRole: string;
}

/** An organization's connection to its identity provider. */
export interface SsoConnection {
  /** Random; part of its URLs (ACS, metadata, callback). */
  id: string;
  orgId: string;
  kind: 'saml' | 'oidc';
  /** Shown to the organization's admins. */
  name: string;
  /** Logins through it are accepted; a disabled connection keeps its settings. */
  enabled: boolean;
  saml?: SamlSettings | undefined;
  oidc?: OidcSettings | undefined;
  /** The service provider's key (sealed PKCS#8) and certificate (base64 DER), SAML only. */
  sp?: { key: string; certificate: string } | undefined;
  roles: RoleMapping;
  /**
   * Authentication contexts (SAML `AuthnContextClassRef`) or `amr` values (OIDC) that count as
   * two factors: a login with one of them does not wait for the app's own second factor.
   */
  mfaContexts: string[];
  /** ms since the epoch. */
  created: number;
  createdBy: string;
  /**
   * Who changed it last (its creator until then). A connection decides who may sign in, so it ends
   * with its author's power: a reset of their credentials, a ban, or their removal from the
   * organization disables it.
   */
  changedBy?: string | undefined;
  /** Why the connection was disabled when its author lost power (a ban, a reset, a removal, a demotion): only an owner enables it again. */
  disabledFor?: 'credentials_reset' | 'banned' | 'removed' | 'demoted' | undefined;
  updated: number;
}

/** The connections family: by id; an organization's, by id; those a user made or changed last. */
export const SSO_CONNECTIONS: Schema<SsoConnection> = {
  family: 'sso_connections',
  id: (c) => c.id,
  indexes: [
    { name: 'org', values: (c) => [`${c.orgId}\u0000${c.id}`] },
    { name: 'author', values: (c) => [`${c.changedBy ?? c.createdBy}\u0000${c.id}`] },
  ],
};
