/** `authgate/idp`: authgate as an OpenID Connect provider for your other apps, native apps and CLIs, as a plugin. */
export { identityProvider, IDP_EVENT_TYPES, type IdentityProviderPlugin } from './plugins/idp/idp-plugin';
export type { IdentityProviderOptions, IdpClient, IdpResource } from './plugins/idp/idp-options';
export type { RegistrationPolicy } from './plugins/idp/registration-policy';
export { protectedResource, accessTokenOf, type ProtectedResource, type ProtectedResourceOptions, type VerifiedAccessToken } from './plugins/idp/protected-resource';
