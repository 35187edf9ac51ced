export { createAuth, type Auth, type AuthHandlers } from './service';
export { resolveOptions, type AuthOptions, type ResolvedOptions, type SameSite } from './options';
export { AuthError, type AuthErrorCode } from './errors';
export { consoleLogger, noopLogger, loggerFunc, type Logger } from './logger';
export type { BasicAuthChecker, ClaimsUpdater, MaybePromise, SecretReader, UserUpdater, Validator } from './hooks';
export type { Claims, Handshake } from './token/claims';
export {
  hashId,
  getStrAttr,
  getBoolAttr,
  setStrAttr,
  setBoolAttr,
  isAdmin,
  setAdmin,
  getRole,
  setRole,
  type User,
  type AttrValue,
} from './token/user';
export { getUser, mustGetUser } from './token/request-user';
export { TokenService, MAX_TOKEN_LENGTH, type ReadToken, type TokenSource } from './token/token-service';
export type { Middleware } from './middleware/authenticator';
export { MemoryRefreshCache, type RefreshCache, type RefreshedToken } from './middleware/refresh-cache';
export { StateRefreshCache } from './middleware/state-refresh-cache';
export type { AuthErrorHandler } from './middleware/error-handler';
export type { Provider, ProviderKit, LoginRequest, CompletedLogin } from './providers/provider';
export type { CredentialChecker } from './providers/direct';
export { VERIFY_TOKEN_TTL_MS } from './providers/verify';
export { AppleProvider, type AppleProviderOptions } from './providers/apple/apple-provider';
export { loadApplePrivateKeyFromFile, type ApplePrivateKeyLoader } from './providers/apple/private-key';
export { TelegramProvider, type TelegramProviderOptions } from './providers/telegram/telegram-provider';
export { senderFunc, type Sender } from './senders/sender';
export { EmailSender, SenderError, type EmailSenderOptions } from './senders/email-sender';
export { renderTemplate } from './senders/template';
export { BUILTIN_PROVIDER_NAMES } from './providers/builtin';
export type { BuiltinProviderOptions } from './providers/builtin/spec';
export type { CustomClient, CustomProviderConfig } from './providers/oauth2/custom-provider';
export type { BearerTokens, OAuth2ProviderOptions } from './providers/oauth2/oauth2-provider';
export type { PassportOAuth2Strategy } from './providers/oauth2/passport-flow';
export { defaultPassportMapper, type PassportProfile, type PassportProfileMapper } from './providers/oauth2/passport-provider';
export { DevServer, type DevServerOptions } from './providers/dev/dev-server';
export { createAvatarStore, AVATAR_STORE_SCHEMES, type AvatarStore } from './avatar/store';
export { avatarIdFor, isAvatarId } from './avatar/avatar-id';
export { AvatarProxy, type AvatarProxyOptions } from './avatar/proxy';
export { FileAvatarStore } from './avatar/stores/file-store';
export { MemoryAvatarStore } from './avatar/stores/memory-store';
export { NoopAvatarStore } from './avatar/stores/noop-store';
export { createLocalOAuthServer, LocalOAuthServer, type LocalOAuthServerOptions, type LocalServerRateLimit } from './providers/local-server/local-oauth-server';
export type { LocalClient } from './providers/local-server/memory-model';
export type { AuthorizeParams } from './providers/dev/login-page';
export { migrateAvatars, type MigrationResult } from './avatar/migrate';
export { RateLimitError, AUTH_RATE_LIMITS, ACCOUNT_RATE_LIMITS, type AuthRateLimit, type AccountRateLimit, type RateLimitRule } from './limits/rate-limiter';
export { LevelAvatarStore } from './avatar/stores/level-store';
export { MongoAvatarStore } from './avatar/stores/mongo-store';
export type { StateStore } from './state/state-store';
export { createStateStore, STATE_STORE_SCHEMES } from './state/create-state-store';
export { MemoryStateStore } from './state/memory-state-store';
export { LevelStateStore } from './state/level-state-store';
export { MongoStateStore } from './state/mongo-state-store';
export { createAccountRouter, type AccountRouter, type AccountRouterOptions } from './account/account-router';
export { MANAGE_USER, type AccountCredentialChecker } from './account/account-service';
export { AccountError, type AccountErrorCode } from './account/account-error';
export { DuplicateEmailError, type AccountStore, type AccessTokenRecord } from './account/account-store';
export { createAccountStore, ACCOUNT_STORE_SCHEMES } from './account/create-account-store';
export { MemoryAccountStore } from './account/stores/memory-account-store';
export { LevelAccountStore } from './account/stores/level-account-store';
export { MongoAccountStore } from './account/stores/mongo-account-store';
export { publicAccount, PROFILE_FIELDS, type Account, type Profile, type PublicAccount } from './account/account';
