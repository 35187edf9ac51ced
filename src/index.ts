/**
 * authgate: login and sessions for Express. The core; backends and integrations an app may not
 * use have their own entry points: `authgate/accounts`, `authgate/two-factor`, `authgate/passkeys`, `authgate/email`, `authgate/telegram`,
 * `authgate/local-server`, `authgate/stores/level`, `authgate/stores/mongo`, `authgate/stores/postgres`,
 * `authgate/stores/redis`.
 */

// The service and its options
export { createAuth, type Auth, type AuthHandlers } from './service';
export { resolveOptions, type AuthOptions, type ResolvedOptions, type SameSite } from './options';
export type { BasicAuthChecker, ClaimsUpdater, MaybePromise, SecretReader, UserUpdater, Validator } from './token/hooks';
export { AuthError, type AuthErrorCode, type AuthErrorReason, type AuthErrorReasons } from './errors';
export { consoleLogger, noopLogger, warningsLogger, loggerFunc, type Logger } from './logger';

// Users, claims and tokens
export { hashId, getStrAttr, getBoolAttr, setStrAttr, setBoolAttr, isAdmin, setAdmin, getRole, setRole, type User, type AttrValue } from './token/user';
export type { Claims, Handshake } from './token/claims';
export { getUser, mustGetUser } from './token/request-user';
export { TokenService, MAX_TOKEN_LENGTH, type ReadToken, type TokenSource } from './token/token-service';

// Sessions
export type { Sessions, SessionInfo } from './sessions/session-registry';
export type { SessionOptions, RevocationCheck } from './sessions/session-options';

// Middleware
export type { Middleware } from './middleware/middleware-set';
export type { RequestCheck, GuardFactory } from './middleware/authenticator';
export type { AuthErrorHandler } from './middleware/error-handler';
export { MemoryRefreshCache, type RefreshCache, type RefreshedToken } from './middleware/refresh-cache';
export { StateRefreshCache } from './middleware/state-refresh-cache';

// Providers
export type { Provider, ProviderKit, LoginRequest, CompletedLogin } from './providers/provider';
export type { CheckResult, CredentialChecker, LoginContext } from './providers/direct';
export type { LoginLinks, LoginIdentity } from './providers/login-links';
export type { LoginLinksService } from './providers/linked-logins-plugin';
export { LINK_COOKIE } from './providers/link-flow';
export { BUILTIN_PROVIDER_NAMES } from './providers/builtin';
export type { BuiltinProviderOptions } from './providers/builtin/spec';
export type { CustomClient, CustomProviderConfig } from './providers/oauth2/custom-provider';
export type { BearerTokens, OAuth2ProviderOptions } from './providers/oauth2/oauth2-provider';
export type { PassportOAuth2Strategy } from './providers/oauth2/passport-flow';
export { defaultPassportMapper, type PassportProfile, type PassportProfileMapper } from './providers/oauth2/passport-provider';
export { DevServer, type DevServerOptions } from './providers/dev/dev-server';
export type { AuthorizeParams } from './providers/dev/login-page';
export { VERIFY_TOKEN_TTL_MS } from './providers/verify';
export { AppleProvider, type AppleProviderOptions } from './providers/apple/apple-provider';
export { loadApplePrivateKeyFromFile, type ApplePrivateKeyLoader } from './providers/apple/private-key';
export type { TelegramProvider, TelegramProviderOptions } from './providers/telegram/telegram-provider';

// Messages
export { senderFunc, type Sender } from './senders/sender';
export { EmailSender, SenderError, type EmailSenderOptions } from './senders/email-sender';
export { renderTemplate } from './senders/template';

// Avatars
export { createAvatarStore, AVATAR_STORE_SCHEMES } from './avatar/create-avatar-store';
export type { AvatarStore } from './avatar/avatar-store';
export { avatarIdFor, isAvatarId } from './avatar/avatar-id';
export { AvatarProxy, type AvatarProxyOptions } from './avatar/proxy';
export { FileAvatarStore } from './avatar/stores/file-store';
export { MemoryAvatarStore } from './avatar/stores/memory-store';
export { NoopAvatarStore } from './avatar/stores/noop-store';
export { migrateAvatars, type MigrationResult } from './avatar/migrate';

// Passkeys and second factors
export type { Credential, CredentialKind, CredentialStore } from './credentials/credential-store';
export type { CredentialChange, CredentialNoticeOptions } from './credentials/credential-notices';
export { createCredentialStore, CREDENTIAL_STORE_SCHEMES } from './credentials/create-credential-store';
export { MemoryCredentialStore } from './credentials/stores/memory-credential-store';
export type { TwoFactorOptions } from './two-factor/two-factor-options';
export { TWO_FACTOR_COOKIE } from './two-factor/pending-login';
export { RECOVERY_CODES, type SecondFactor } from './two-factor/two-factor';
export type { PasskeyOptions } from './providers/passkey/passkey-options';
export type { OidcProviderOptions, OidcClientAuth } from './providers/oidc/oidc-options';
export { OidcProvider, defaultOidcUser } from './providers/oidc/oidc-provider';
export { PASSKEY_COOKIE, PasskeyProvider } from './providers/passkey/passkey-provider';

// Plugins (features of the identity core; each has its entry point: authgate/two-factor, authgate/passkeys, ...)
export type { AuthPlugin, PluginContext, PluginContribution, PluginRoute, PluginServices, RouteMethod, LoginPhases, UserEventHandlers } from './plugins/plugin';
export type { PluginAuthenticator, PluginAvatars, PluginEvents, PluginLockout, PluginKit, PluginSessions, PluginTokens, PluginUsers } from './plugin-api/core-api';
export { LOGIN_PHASES } from './plugins/plugin';
export { twoFactor } from './two-factor/two-factor-plugin';
export { passkeys, type PasskeysPluginOptions } from './providers/passkey/passkeys-plugin';

// The user directory
export type { UserRecord, UserLogin, UserStatus, UserStore, UserStoreQuery, UserStorePage, UserListPosition } from './users/user-store';
export { createUserStore, USER_STORE_SCHEMES } from './users/create-user-store';
export { MemoryUserStore } from './users/stores/memory-user-store';
export { UserDirectory, MAX_USER_PAGE, type UserList, type UserListOptions } from './users/user-directory';

// Shared state and rate limits
export type { StateStore, GroupMember, Subscription } from './state/state-store';
export { createStateStore, STATE_STORE_SCHEMES } from './state/create-state-store';
export { MemoryStateStore } from './state/stores/memory-state-store';
export { RateLimitError, AUTH_RATE_LIMITS, ACCOUNT_RATE_LIMITS, type AuthRateLimit, type AccountRateLimit, type RateLimitRule } from './limits/rate-limiter';

// The account router (the whole family is in `authgate/accounts`)
export { createAccountRouter, type AccountRouter, type AccountCoreParts } from './account/account-router';
export type { AccountRouterOptions, LoginSessions } from './account/account-options';

// Security events and the audit log
export { AUTH_EVENT_TYPES, type AuthEvent, type AuthEventType, type AuthEventTypes, type EventActor, type NewAuthEvent } from './events/auth-event';
export { EventBus, type EventHandler, type EventListOptions, type EventClient } from './events/event-bus';
export type { AuditStore, AuditQuery, AuditPage } from './events/audit-store';
export { createAuditStore, AUDIT_STORE_SCHEMES } from './events/create-audit-store';
export { MemoryAuditStore } from './events/stores/memory-audit-store';

// Types that appear in the signatures above (for plugins and typed options)
export type { BearerResolver, Authenticator, RequestLogin } from './middleware/authenticator';
export type { ProviderAction } from './providers/provider';
export type { NotificationOptions } from './events/notifications';
export type { WebhookOptions, Webhook, WebhookQueue } from './events/webhooks';
export type { SafeFetchLimits } from './internal/safe-fetch';
export type { RedirectPolicy } from './internal/redirect-policy';
export type { SessionRegistry, SessionStatus } from './sessions/session-registry';
export type { CrossSitePolicy } from './internal/cross-origin';
export type { SettledOptions } from './options';
export type { StateEntry } from './state/stores/base-state-store';
export type { EventBusOptions } from './events/event-bus';
export type { ResolvedOidcOptions } from './providers/oidc/oidc-options';
export type { ResolvedPasskeyOptions } from './providers/passkey/passkey-options';
export type { TokenOptions, ResolvedTokenOptions } from './token/token-options';
export type { ServiceTokenOptions, ServiceTokenSigner } from './token/token-service';
export type { AccountEventType } from './account/account-options';
