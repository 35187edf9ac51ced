export { createAuthClient, type AuthClientOptions } from './auth-client';
export type * from './client-api';
export { AuthClientError, isAuthClientError, type AuthClientErrorCode, type ServerErrorCode, type ServerErrorCodes, type ClientOnlyErrorCode } from './client-errors';
export type { WebAuthnBrowser } from './browser-env';
export type * from './client-types';
