/**
 * authgate: login and sessions for Express. The core; backends and integrations an app may not
 * use have their own entry points: `authgate/accounts`, `authgate/two-factor`, `authgate/passkeys`, `authgate/email`, `authgate/telegram`,
 * `authgate/local-server`, `authgate/stores/level`, `authgate/stores/mongo`, `authgate/stores/postgres`,
 * `authgate/stores/redis`.
 */

// The service and its options
export { createAuth, type Auth, type AuthHandlers } from './service/service';
export type { HealthCheck, HealthReport } from './service/health';
export { TELEMETRY_COUNTERS, TELEMETRY_HISTOGRAMS, type TelemetryCounter, type TelemetryHistogram } from './base/telemetry';
export { resolveOptions, type AuthOptions, type ResolvedOptions, type SameSite } from './service/options';
export type { BasicAuthChecker, ClaimsUpdater, MaybePromise, SecretReader, UserUpdater, Validator } from './core/token/hooks';
export { AuthError, type AuthErrorCode, type AuthErrorReason, type AuthErrorReasons } from './base/errors';
export { browserModules } from './browser-modules';
export { Translations, acceptedLanguages, type TranslationOptions, type Messages, type MessagesByLocale, type PageWords } from './core/i18n/translations';
export { breachedPasswordCheck, type BreachedPasswordOptions } from './core/credentials/breached-passwords';
export {
  consoleLogger,
  noopLogger,
  warningsLogger,
  loggerFunc,
  logTo,
  jsonLogger,
  type JsonLoggerOptions,
  type Logger,
  type LeveledLogger,
  type LineLogger,
  type Log,
  type LogFields,
  type LogLevel,
  type LogMethod,
} from './base/logger';

// Users, claims and tokens
export { hashId, getStrAttr, getBoolAttr, setStrAttr, setBoolAttr, isAdmin, setAdmin, getRole, setRole, type User, type AttrValue } from './core/token/user';
export type { Claims, Handshake } from './core/token/claims';
export { getUser, mustGetUser } from './core/token/request-user';
export { TokenService, MAX_TOKEN_LENGTH, type ReadToken, type TokenSource } from './core/token/token-service';

// Sessions
export type { Sessions, SessionInfo } from './core/sessions/session-registry';
export type { SessionOptions, RevocationCheck } from './core/sessions/session-options';

// Middleware
export type { Middleware } from './core/middleware/middleware-set';
export type { RequestCheck, GuardFactory } from './core/middleware/authenticator';
export type { AuthErrorHandler } from './core/middleware/error-handler';
export { MemoryRefreshCache, type RefreshCache, type RefreshedToken } from './core/middleware/refresh-cache';
export { StateRefreshCache } from './core/middleware/state-refresh-cache';

// Providers
export type { Provider, ProviderKit, LoginRequest, CompletedLogin } from './providers/provider';
export type { CheckResult, CredentialChecker, LoginContext } from './providers/direct';
export type { LoginLinks, LoginIdentity } from './providers/login-links';
export type { LoginLinksService } from './plugin-api/login-links-service';
export { LINK_COOKIE } from './providers/link-flow';
export { BUILTIN_PROVIDER_NAMES } from './providers/builtin/names';
export type { BuiltinProviderOptions } from './providers/builtin/spec';
export type { CustomClient, CustomProviderConfig } from './providers/oauth2/custom-provider';
export type { BearerTokens, OAuth2ProviderOptions } from './providers/oauth2/oauth2-provider';
export type { PassportOAuth2Strategy } from './providers/oauth2/passport-flow';
export { defaultPassportMapper, type PassportProfile, type PassportProfileMapper } from './providers/oauth2/passport-profile';
export { DevServer, type DevServerOptions } from './providers/dev/dev-server';
export type { AuthorizeParams } from './providers/dev/login-page';
export { VERIFY_TOKEN_TTL_MS } from './providers/verify-token';
export { AppleProvider, type AppleProviderOptions } from './providers/apple/apple-provider';
export { loadApplePrivateKeyFromFile, type ApplePrivateKeyLoader } from './providers/apple/private-key';
export type { TelegramProvider, TelegramProviderOptions } from './providers/telegram/telegram-provider';

// Messages
export { senderFunc, type Sender } from './core/senders/sender';
export { EmailSender, SenderError, type EmailSenderOptions } from './core/senders/email-sender';
export { renderTemplate } from './core/senders/template';

// Avatars
export { createAvatarStore, AVATAR_STORE_SCHEMES } from './stores/create-avatar-store';
export type { AvatarStore } from './core/avatar/avatar-store';
export { avatarIdFor, isAvatarId } from './core/avatar/avatar-id';
export { AvatarProxy, type AvatarProxyOptions } from './core/avatar/proxy';
export { FileAvatarStore } from './stores/file/file-avatar-store';
export { MemoryAvatarStore } from './stores/memory/memory-avatar-store';
export { NoopAvatarStore } from './core/avatar/noop-avatar-store';
export { migrateAvatars, type MigrationResult } from './core/avatar/migrate';

// Passkeys and second factors
export type { Credential, CredentialKind, CredentialStore } from './core/credentials/credential-store';
export type { CredentialChange, CredentialNoticeOptions } from './core/credentials/credential-notices';
export { createCredentialStore, CREDENTIAL_STORE_SCHEMES } from './stores/create-credential-store';
export { MemoryCredentialStore } from './stores/memory/memory-credential-store';
export type { TwoFactorOptions } from './plugins/two-factor/two-factor-options';
export { RECOVERY_CODES, TWO_FACTOR_COOKIE } from './plugins/two-factor/two-factor-options';
export type { SecondFactor } from './plugins/two-factor/two-factor-service';
export type { PasskeyOptions } from './providers/passkey/passkey-options';
export type { OidcProviderOptions, OidcClientAuth } from './providers/oidc/oidc-options';
export { OidcProvider } from './providers/oidc/oidc-provider';
export { defaultOidcUser } from './providers/oidc/oidc-user';
export { PASSKEY_COOKIE, PasskeyProvider } from './providers/passkey/passkey-provider';

// Plugins (features of the identity core; each has its entry point: authgate/two-factor, authgate/passkeys, ...)
export type {
  AuthPlugin,
  PluginContext,
  PluginContribution,
  PluginRoute,
  PluginServices,
  RouteMethod,
  LoginPhases,
  UserEventHandlers,
  SignInMethod,
  SignInPolicy,
  GuardedAction,
  ActionGuard,
  ActionName,
  ActionCall,
  ActionHook,
} from './plugin-api/plugin';
export type { PluginAuthenticator, PluginAvatars, PluginEvents, PluginLockout, PluginKit, PluginSessions, PluginTokens, PluginUsers } from './plugin-api/core-api';
export { LOGIN_PHASES } from './plugin-api/plugin';
export { twoFactor } from './plugins/two-factor/two-factor-plugin';
export { passkeys, type PasskeysPluginOptions } from './plugins/passkeys/passkeys-plugin';

// The user directory
export type { UserRecord, UserLogin, UserStatus, UserStore, UserStoreQuery, UserStorePage, UserListPosition } from './core/users/user-store';
export { createUserStore, USER_STORE_SCHEMES } from './stores/create-user-store';
export { MemoryUserStore } from './stores/memory/memory-user-store';
export { UserDirectory, MAX_USER_PAGE, type UserList, type UserListOptions } from './core/users/user-directory';

// Shared state and rate limits
export type { StateStore, GroupMember, Subscription } from './core/state/state-store';
export { createStateStore, STATE_STORE_SCHEMES } from './stores/create-state-store';
export { MemoryStateStore } from './stores/memory/memory-state-store';
export { RateLimitError, AUTH_RATE_LIMITS, ACCOUNT_RATE_LIMITS, type AuthRateLimit, type AccountRateLimit, type RateLimitRule } from './core/limits/rate-limiter';

// The account router (the whole family is in `authgate/accounts`)
export { createAccountRouter } from './plugins/accounts/account-router-on-use';
export type { AccountRouter, AccountCoreParts } from './plugins/accounts/account-router';
export type { AccountRouterOptions, LoginSessions } from './plugins/accounts/account-options';

// Security events and the audit log
export { AUTH_EVENT_TYPES, type AuthEvent, type AuthEventType, type AuthEventTypes, type EventActor, type NewAuthEvent } from './core/audit/auth-event';
export { EventBus, type EventHandler, type EventHandlerOptions, type EventListOptions, type EventClient, type EventOrigin } from './core/events/event-bus';
export type { AuditStore, AuditQuery, AuditPage } from './core/audit/audit-store';
export { createAuditStore, AUDIT_STORE_SCHEMES } from './stores/create-audit-store';
export { MemoryAuditStore } from './stores/memory/memory-audit-store';

// Types that appear in the signatures above (for plugins and typed options)
export type { BearerResolver, Authenticator, RequestLogin } from './core/middleware/authenticator';
export type { ProviderAction } from './providers/provider';
export type { NotificationOptions } from './core/events/notifications';
export type { WebhookOptions, Webhook, WebhookQueue } from './core/events/webhooks';
export type { SafeFetchLimits } from './internal/safe-fetch';
export type { RedirectPolicy } from './internal/redirect-policy';
export type { SessionRegistry, SessionStatus } from './core/sessions/session-registry';
export type { CrossSitePolicy } from './internal/cross-origin';
export type { SettledOptions } from './service/options';
export type { StateEntry } from './core/state/base-state-store';
export type { EventBusOptions } from './core/events/event-bus';
export type { ResolvedOidcOptions } from './providers/oidc/oidc-options';
export type { NetworkGuard } from './internal/json-client';
export type { ResolvedPasskeyOptions } from './providers/passkey/passkey-options';
export type { TokenOptions, ResolvedTokenOptions } from './core/token/token-options';
export type { ServiceTokenOptions, ServiceTokenSigner } from './core/token/token-service';
export type { AccountEventType } from './plugins/accounts/account-options';
