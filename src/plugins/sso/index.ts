/** `authgate/sso`: single sign-on per organization (verified domains, SAML 2.0 and OpenID Connect connections). */
export { sso, SSO_ERROR_CODES, SSO_EVENT_TYPES, type SsoPlugin } from './sso-plugin';
export type { SsoOptions } from './sso-options';
export type { DnsOptions } from './dns-proof';
export { SsoDomains, SSO_PERMISSION, type DomainView } from './sso-domains';
export { SsoConnections, type ConnectionView } from './sso-connections';
export { MAX_CONNECTIONS_PER_ORG, MAX_DOMAINS_PER_ORG } from './sso-repository';
export { SSO_PROVIDER } from './sso-provider';
export { MAX_SAML_RESPONSE, type SamlServiceProvider, type SamlAssertion, type SpUrls } from './saml-sp';
export type { DomainClaim } from './domain-schema';
export type { OidcSettings, RoleMapping, SamlSettings, SsoConnection } from './connection-schema';
