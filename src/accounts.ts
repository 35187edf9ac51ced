/** `authgate/accounts`: the account service (sign-up, activation, access tokens, profiles) and its stores. */
export { createAccountRouter, type AccountRouter, type AccountCoreParts } from './account/account-router';
export type { AccountRouterOptions, LoginSessions } from './account/account-options';
export { MANAGE_USER, type AccountCredentialChecker } from './account/account-service';
export { ACCOUNT_ERROR_CODES, accountErrorBody, type AccountErrorBody, type AccountErrorReason } from './account/account-error';
export { DuplicateEmailError, type AccountStore, type AccessTokenRecord, type LinkOutcome } from './account/account-store';
export type { AccountLogin } from './account/linked-logins';
export { createAccountStore, ACCOUNT_STORE_SCHEMES } from './account/create-account-store';
export { MemoryAccountStore } from './account/stores/memory-account-store';
export { publicAccount, PROFILE_FIELDS, type Account, type Profile, type PublicAccount, type LinkedLogin } from './account/account';
export { accounts, type AccountsPlugin, type AccountsPluginOptions } from './account/accounts-plugin';
export type { StoredCode } from './account/account';
export type { LockoutRule } from './limits/lockout';
export type { PasswordPolicy } from './account/password-policy';
