import type { IdpClient } from './idp-options';

/** The OpenID Connect scopes of the provider; the resources' scopes join them in discovery. */
export const OIDC_SCOPES: readonly string[] = ['openid', 'offline_access', 'profile', 'email'];

/** The scopes a client may ask for: the OpenID Connect ones and those of the resources it may use (no other resource's). */
export function scopesFor(resourceIds: Iterable<string>, resources: ReadonlyMap<string, { scopes: string[] }>): string {
  return [...new Set([...OIDC_SCOPES, ...[...resourceIds].flatMap((id) => resources.get(id)?.scopes ?? [])])].join(' ');
}

/**
 * A client as oidc-provider takes it: its authentication by what it holds, code flow only, PKCE,
 * `auth_time` in id_tokens, and `scope` limited to what it may ask for (`scopes`, see {@link scopesFor}).
 */
export function clientMetadata(client: IdpClient, alg: string, scopes: string): Record<string, unknown> {
  const auth =
    client.clientSecret !== undefined
      ? { client_secret: client.clientSecret, token_endpoint_auth_method: 'client_secret_basic' }
      : client.jwks !== undefined
        ? { jwks: client.jwks, token_endpoint_auth_method: 'private_key_jwt' }
        : { token_endpoint_auth_method: 'none' };
  return {
    client_id: client.clientId,
    ...(client.name ? { client_name: client.name } : {}),
    ...auth,
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
    ...(client.backchannelLogoutUri ? { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true } : {}),
    grant_types: ['authorization_code', 'refresh_token', ...(client.deviceFlow ? ['urn:ietf:params:oauth:grant-type:device_code'] : [])],
    response_types: ['code'],
    application_type: client.applicationType ?? 'web',
    id_token_signed_response_alg: alg,
    scope: scopes,
    require_auth_time: true,
    ...(client.dpopRequired ? { dpop_bound_access_tokens: true } : {}),
    ...(client.requirePushedAuthorizationRequests ? { require_pushed_authorization_requests: true } : {}),
  };
}
