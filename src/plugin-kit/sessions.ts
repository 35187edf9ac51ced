/** The plugin kit: tokens, claims, sessions and the middleware. */
export { type BearerResolver, type GuardFactory, type RequestCheck } from '../core/middleware/authenticator';
export { announceGuards } from '../core/middleware/middleware-set';
export { jtiHash, type SessionInfo, sessionJti, type Sessions } from '../core/sessions/session-registry';
export { type Claims, claimsShapeError, isPlainObject } from '../core/token/claims';
export { type MaybePromise } from '../core/token/hooks';
export { HANDSHAKE_DURATION_MS, type ServiceTokenOptions, type ServiceTokenSigner } from '../core/token/token-service';
export { hashId, isAdmin, type User } from '../core/token/user';
