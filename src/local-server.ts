/** `authgate/local-server`: an OAuth2 authorization server of your own (needs the optional package @node-oauth/oauth2-server). */
export { createLocalOAuthServer, LocalOAuthServer, type LocalOAuthServerOptions, type LocalServerRateLimit } from './providers/local-server/local-oauth-server';
export type { LocalClient } from './providers/local-server/local-client';
export type { AuthorizeParams } from './providers/dev/login-page';
