/** `authgate/accounts`: the account service (sign-up, activation, access tokens, profiles) and its stores. */
export { createAccountRouter, type AccountRouter, type AccountCoreParts } from './plugins/accounts/account-router';
export type { AccountRouterOptions, LoginSessions } from './plugins/accounts/account-options';
export { MANAGE_USER, type AccountCredentialChecker } from './plugins/accounts/account-service';
export { ACCOUNT_ERROR_CODES, accountErrorBody, type AccountErrorBody, type AccountErrorReason } from './plugins/accounts/account-error';
export { DuplicateEmailError, type AccountStore, type AccessTokenRecord, type LinkOutcome } from './plugins/accounts/account-store';
export type { AccountLogin } from './plugins/accounts/linked-logins';
export { createAccountStore, ACCOUNT_STORE_SCHEMES } from './plugins/accounts/create-account-store';
export { MemoryAccountStore } from './plugins/accounts/stores/memory-account-store';
export { publicAccount, PROFILE_FIELDS, type Account, type Profile, type PublicAccount, type LinkedLogin } from './plugins/accounts/account';
export { accounts, type AccountsPlugin, type AccountsPluginOptions } from './plugins/accounts/accounts-plugin';
export { importedPasswordHash } from './plugins/accounts/imported-password';
export type { LegacyLogin, LegacyLoginOptions, LegacyVerdict } from './plugins/accounts/legacy-login';
export type { FirebaseHashParameters, ImportedHashOptions } from './core/credentials/imported-hashes';
export type { StoredCode } from './plugins/accounts/account';
export type { LockoutRule } from './core/limits/lockout';
export type { PasswordPolicy } from './plugins/accounts/password-policy';
