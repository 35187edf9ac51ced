/** `authgate/sso`: single sign-on per organization (this release: verified domains). */
export { sso, SSO_ERROR_CODES, SSO_EVENT_TYPES, type SsoPlugin } from './sso-plugin';
export type { SsoOptions } from './sso-options';
export type { DnsOptions } from './dns-proof';
export { SsoDomains, SSO_PERMISSION, type DomainView } from './sso-domains';
export { MAX_DOMAINS_PER_ORG } from './sso-repository';
export type { DomainClaim } from './domain-schema';
