/** The plugin kit: login providers a plugin builds on (OpenID Connect, passkeys, links, direct logins). */
export { DirectProvider, type LoginContext } from '../providers/direct';
export { JwksCache } from '../providers/jwks-cache';
export { type LinkFlow, type LinkIntent } from '../providers/link-flow';
export { loginAudience, loginField, loginFlag } from '../providers/login-fields';
export { type LoginIdentity, type LoginLinks } from '../providers/login-links';
export { OidcDiscovery, type OidcMetadata } from '../providers/oidc/oidc-discovery';
export { resolveOidcOptions } from '../providers/oidc/oidc-options';
export { OidcProvider } from '../providers/oidc/oidc-provider';
export { type PasskeyOptions, resolvePasskeyOptions } from '../providers/passkey/passkey-options';
export { PasskeyProvider } from '../providers/passkey/passkey-provider';
export { type CompletedLogin, type LoginRequest, type Provider, type ProviderAction, type ProviderKit } from '../providers/provider';
