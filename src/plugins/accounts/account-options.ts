import {
  checkImportedHashOptions,
  configError,
  canonicalEmail,
  positiveMs,
  requirePackages,
  warningsLogger,
  type Logger,
  type Sender,
  type AvatarProxy,
  type CredentialStore,
  type ImportedHashOptions,
} from '../../plugin-kit/helpers';
import type { User, Sessions } from '../../plugin-kit/sessions';
import type { SignInMethod, SecondFactor } from '../../plugin-kit/plugin-api';
import type { CrossSiteOptions } from '../../plugin-kit/http';
import { resolveIpv6Prefix, type AccountRateLimit, type RateLimitRule, type StateStore, DEFAULT_LOCKOUT, type LockoutRule } from '../../plugin-kit/state';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccountStore } from './account-store';
import { loadBcrypt } from './passwords';
import { passwordChecker, type PasswordPolicy } from './password-policy';
import { resolveLegacyLogin, type LegacyLoginOptions, type ResolvedLegacyLogin } from './legacy-login';

/** Options of {@link createAccountRouter}. */
export interface AccountRouterOptions extends CrossSiteOptions {
  /** An account store, or a URI: `level:///path`, `mongodb://...`, `memory://`. */
  store: AccountStore | string;
  /** Delivers activation mails (e.g. an `EmailSender`). */
  sender: Sender;
  /** The public URL the router is mounted at, for activation links, e.g. `https://example.com/account`. */
  baseUrl: string;
  /** How long an access token is valid, in ms. @default 3600000 (one hour) */
  onlineThreshold?: number | undefined;
  /** The activation mail with `{{.Email}}`, `{{.Id}}`, `{{.Code}}`, `{{.Link}}`. @default a short text with the link */
  activationTemplate?: string | undefined;
  /** bcrypt cost. @default 12 */
  bcryptRounds?: number | undefined;
  /**
   * What checking password hashes imported from another system needs: Firebase's project hash
   * parameters for its modified scrypt. Each imported hash is replaced by authgate's own at the
   * user's first login. @default {} (every other format needs nothing)
   */
  importedHashes?: ImportedHashOptions | undefined;
  /**
   * Lazy migration from a system that will not give its password hashes: on a login to an address
   * with no account here (or an imported account without a password), `check` asks the old system
   * (Auth0's password grant, say), and a yes moves the person in with that password under
   * authgate's own hash. See docs/import/README.md. @default undefined (no old system is asked)
   */
  legacyLogin?: LegacyLoginOptions | undefined;
  /**
   * Growing delays after wrong passwords for one e-mail from one IP (`/tokens` and the account
   * bridge's logins): 429 with Retry-After, never a permanent lock; `false` turns it off.
   * @default { freeFailures: 5, firstDelayMs: 1000, maxDelayMs: 900000, windowMs: 86400000 }
   */
  lockout?: Partial<LockoutRule> | false | undefined;
  /**
   * Rules for new passwords besides their length (8 to 256 characters): the offline common-password
   * list (needs the optional package `@zxcvbn-ts/language-common`) and your own `check`.
   * @default { commonPasswords: true }
   */
  passwordPolicy?: PasswordPolicy | undefined;
  /** E-mails that hold `manage_user` once activated. @default [] */
  managers?: string[] | undefined;
  /** How long an activation code is valid, in ms. @default 86400000 (one day) */
  activationCodeTtl?: number | undefined;
  /** How long a password-reset code is valid, in ms. @default 1800000 (30 minutes) */
  resetCodeTtl?: number | undefined;
  /**
   * The password-reset mail with `{{.Email}}`, `{{.EmailParam}}` (the address encoded for a URL, for
   * a link such as `https://app/#reset={{.Code}}&email={{.EmailParam}}`) and `{{.Code}}`.
   * @default a short text with the code and what to do if it was not you
   */
  resetTemplate?: string | undefined;
  /**
   * The notice mailed after a password reset, with `{{.Email}}` and `{{.Removed}}` (what the reset
   * removed, e.g. "2 passkeys and 1 linked login", or "nothing else").
   * @default a short text saying what happened and what to do if it was not you
   */
  resetNoticeTemplate?: string | undefined;
  /**
   * A password reset is how an owner takes an account back: by default it also removes the
   * account's passkeys and linked logins (with `loginSessions`), which a stolen session may have
   * added, and says so in the reset notice. `true` keeps them.
   * @default false
   */
  keepCredentialsOnReset?: boolean | undefined;
  /** The mail to a new address with `{{.Email}}` (the old one), `{{.NewEmail}}`, `{{.Code}}`. @default a short text with the code */
  emailChangeTemplate?: string | undefined;
  /** The notice to the old address with `{{.Email}}`, `{{.NewEmail}}`. @default a short text saying what happens and what to do if it was not you */
  emailChangeNoticeTemplate?: string | undefined;
  /**
   * Sign-up of an already activated e-mail, and an e-mail change to a taken address, answer 202
   * like a free address and mail the address's owner a notice (`existingAccountTemplate`) instead
   * of 409 1.5, so neither tells who has an account.
   * @default false
   */
  concealExistingAccounts?: boolean | undefined;
  /** The notice mailed under `concealExistingAccounts`, with `{{.Email}}`. @default a short text that says what happened and what to do */
  existingAccountTemplate?: string | undefined;
  /** Size limit of request bodies. @default 16384 */
  bodyLimit?: number | undefined;
  /** How long a store call may take before the request gets a 503. @default 5000 */
  storeTimeout?: number | undefined;
  /** Where rate-limit counters live: a state store or its URI; share a mongo one between instances. @default 'memory://' */
  stateStore?: StateStore | string | undefined;
  /**
   * Rate limits (429 with Retry-After past them). `false` turns all off; overrides per limit as in `createAuth`.
   * @default signupPerIp 20/10 min, signupPerEmail 5/10 min, resendPerIp 20/10 min, resendPerEmail 3/10 min, tokensPerIp 60/min, tokensPerEmail 10/min (failed ones only), activePerIp 30/min, activePerId 10/min, forgotPerIp 20/10 min, forgotPerEmail 3/hour (mails; the last code mailed stays valid), resetPerIp 30/10 min, resetPerEmail 10/10 min (bad codes only), emailChangePerId 10/10 min
   */
  rateLimits?: false | Partial<Record<AccountRateLimit, RateLimitRule | false>> | undefined;
  /**
   * Per-IP limits and the lockout count an IPv6 client by its network of this many leading bits;
   * IPv4-mapped addresses count as the IPv4 address.
   * @default 64
   */
  ipv6RateLimitPrefix?: number | undefined;
  /** Where failures are logged (never passwords, codes or tokens). @default warningsLogger (warnings and errors to console.warn: a mail that could not be sent is never silent) */
  logger?: Logger | undefined;
  /**
   * The auth service's sessions and the name the account bridge is registered under
   * (`auth.addDirectProvider(provider, accounts.credentialChecker())`): a password change, a
   * reset and a deletion then end every session of that login (and a deletion its avatar, with
   * `avatars`, and its passkeys and second factor with `credentials`), e.g.
   * `{ sessions: auth.sessions, provider: 'local', avatars: auth.avatars, credentials: auth.credentials }`.
   * @default undefined (sessions of the bridge are left alone)
   */
  loginSessions?: LoginSessions | undefined;
  /** How many other logins one account may link (`accounts.loginLinks()`). @default 20 */
  maxLinkedLogins?: number | undefined;
}

/** The account events {@link LoginSessions.onEvent} is told of. */
export type AccountEventType = 'account.created' | 'account.activated' | 'password.changed' | 'password.reset' | 'email.changed' | 'account.deleted';

/** See {@link AccountRouterOptions.loginSessions}. */
export interface LoginSessions {
  /** `auth.sessions`. */
  sessions: Sessions;
  /** The direct provider's name. */
  provider: string;
  /** `auth.avatars`: deleting an account also deletes the avatar of its login. @default undefined */
  avatars?: Pick<AvatarProxy, 'removeFor'>;
  /**
   * `auth.credentials`: an e-mail change moves the account's passkeys and second factor to its
   * new user id, and a deletion deletes them (so a later sign-up of the address never gets them).
   * @default undefined
   */
  credentials?: CredentialStore;
  /**
   * `auth.twoFactor`: an account with two-factor on gets an access token from `/tokens` only with
   * `otp` (a code of the authenticator app or a recovery code) besides the password.
   * @default undefined
   */
  twoFactor?: SecondFactor;
  /**
   * Whether an admin banned the account's user (`auth.users`): `/tokens` then refuses it (403) and
   * its access tokens stop working. The accounts plugin passes the core's.
   * @default undefined (no bans)
   */
  isBanned?(userId: string): Promise<boolean>;
  /**
   * The user of the request's authgate session under the step-up policy (its cookie with the XSRF
   * header, a live session, a login of the last `stepUpMaxAge`, never an impersonation), or a
   * rejection (an `AuthError` with reason `step_up_required` answers 403). With it, `POST /tokens`
   * also takes `grant_type=session`: a browser that just signed in as the account (two-factor done
   * at that login) gets an access token without typing the password and a second code again. The
   * accounts plugin passes the core's.
   * @default undefined (the password grant only)
   */
  sessionUser?(req: IncomingMessage, res: ServerResponse): Promise<User>;
  /**
   * Whether an address may sign up, get a password token or reset its password (the plugins'
   * sign-in policy: an SSO-enforced domain answers 403 `sso_required`). @default all may
   */
  checkSignIn?(address: string, method: SignInMethod): Promise<void>;
  /**
   * Whether the request may sign up, ask for a reset code or get a password token (the plugins'
   * action guards: a CAPTCHA); the accounts plugin passes the core's. @default all may
   */
  checkAction?(action: 'login' | 'signup' | 'password-reset', req: IncomingMessage): Promise<void>;
  /** Told of a wrong password at `/tokens` (for a guard that asks only after failures). @default undefined */
  actionFailed?(action: 'login', req: IncomingMessage): Promise<void>;
  /** Told of a right password at `/tokens` (a guard that counts attempts takes it back). @default undefined */
  actionSucceeded?(action: 'login', req: IncomingMessage): Promise<void>;
  /**
   * Told of each account event (`account.created`, `account.activated`, `password.changed`,
   * `password.reset`, `email.changed`, `account.deleted`) with the user id of the account's login
   * and whether the owner or a manager did it. The accounts plugin records them as security events.
   * @default undefined
   */
  onEvent?(type: AccountEventType, userId: string, by: 'owner' | 'manager'): void;
  /**
   * Told each user id of a deleted account once the account's own cleanup is done (the accounts
   * plugin passes the core's, which also ends sessions and removes the directory record).
   * @default undefined
   */
  onUserDeleted?(userId: string): Promise<void>;
  /**
   * Moves what is kept under a user's former id (the bridge's id before it followed the account) to
   * its id now; replaces the move of credentials through `credentials`. @default undefined
   */
  onUserIdChanged?(from: string, to: User): Promise<void>;
  /**
   * Removes what a stolen session could have added to a user (at a password reset) and says what
   * went; replaces the removal of passkeys through `credentials`. @default undefined
   */
  onCredentialsReset?(userId: string): Promise<string[]>;
}

/** {@link AccountRouterOptions} checked, with defaults filled in (stores not opened yet). */
export interface ResolvedAccountOptions {
  baseUrl: URL;
  bcryptRounds: number;
  importedHashes: ImportedHashOptions;
  legacyLogin: ResolvedLegacyLogin | undefined;
  storeTimeout: number;
  onlineThreshold: number;
  codeTtl: number;
  resetCodeTtl: number;
  /** As given; absent: the mail of the request's language from the translations. */
  resetTemplate: string | undefined;
  /** As given; absent: the mail of the request's language from the translations. */
  resetNoticeTemplate: string | undefined;
  keepCredentialsOnReset: boolean;
  /** As given; absent: the mail of the request's language from the translations. */
  emailChangeTemplate: string | undefined;
  /** As given; absent: the mail of the request's language from the translations. */
  emailChangeNoticeTemplate: string | undefined;
  bodyLimit: number;
  /** As given; absent: the mail of the request's language from the translations. */
  activationTemplate: string | undefined;
  /** As given; absent: the mail of the request's language from the translations. */
  existingAccountTemplate: string | undefined;
  managers: ReadonlySet<string>;
  concealExistingAccounts: boolean;
  loginSessions: LoginSessions | undefined;
  maxLinkedLogins: number;
  checkPassword(password: string, email: string): Promise<void>;
  lockout: LockoutRule | false;
  ipv6RateLimitPrefix: number;
}

/** Checks every option of {@link AccountRouterOptions}; a start-up error names the one to change. */
export function resolveAccountOptions(options: AccountRouterOptions): ResolvedAccountOptions {
  requirePackages(options?.passwordPolicy?.commonPasswords === false ? ['bcrypt'] : ['bcrypt', '@zxcvbn-ts/language-common'], 'the account service');
  if (!options?.sender || typeof options.sender.send !== 'function') throw configError('createAccountRouter() needs a sender for activation mails');
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw configError('createAccountRouter() needs baseUrl, the public URL it is mounted at, e.g. "https://example.com/account"');
  }
  const rounds = options.bcryptRounds ?? 12;
  if (!Number.isInteger(rounds) || rounds < 4 || rounds > 31) throw configError('bcryptRounds must be a whole number from 4 to 31');
  const storeTimeout = positiveMs('storeTimeout', options.storeTimeout, 5000);
  const onlineThreshold = positiveMs('onlineThreshold', options.onlineThreshold, 3_600_000);
  const codeTtl = positiveMs('activationCodeTtl', options.activationCodeTtl, 24 * 3_600_000);
  const bodyLimit = positiveMs('bodyLimit', options.bodyLimit, 16 * 1024);
  const resetCodeTtl = positiveMs('resetCodeTtl', options.resetCodeTtl, 30 * 60_000);
  for (const name of ['activationTemplate', 'existingAccountTemplate', 'resetTemplate', 'resetNoticeTemplate', 'emailChangeTemplate', 'emailChangeNoticeTemplate'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'string') throw configError(`options.${name} must be a text template`);
  }
  if (options.managers !== undefined && (!Array.isArray(options.managers) || options.managers.some((m) => typeof m !== 'string' || canonicalEmail(m) === undefined))) {
    throw configError('options.managers must be a list of e-mail addresses');
  }
  const bridge = options.loginSessions;
  if (bridge !== undefined && (typeof bridge?.sessions?.revokeAll !== 'function' || typeof bridge.provider !== 'string' || bridge.provider === '')) {
    throw configError("options.loginSessions needs { sessions: auth.sessions, provider: '<the direct provider name>' }");
  }
  const maxLinkedLogins = options.maxLinkedLogins ?? 20;
  if (!Number.isInteger(maxLinkedLogins) || maxLinkedLogins < 1 || maxLinkedLogins > 1000) throw configError('maxLinkedLogins must be a whole number from 1 to 1000');
  // Passwords need bcrypt: a missing package fails here, at start-up, not at the first sign-up.
  loadBcrypt();
  return {
    baseUrl: base,
    bcryptRounds: rounds,
    importedHashes: checkImportedHashOptions(options.importedHashes),
    legacyLogin: resolveLegacyLogin(options.legacyLogin),
    storeTimeout,
    onlineThreshold,
    codeTtl,
    resetCodeTtl,
    resetTemplate: options.resetTemplate,
    resetNoticeTemplate: options.resetNoticeTemplate,
    keepCredentialsOnReset: options.keepCredentialsOnReset ?? false,
    emailChangeTemplate: options.emailChangeTemplate,
    emailChangeNoticeTemplate: options.emailChangeNoticeTemplate,
    bodyLimit,
    activationTemplate: options.activationTemplate,
    existingAccountTemplate: options.existingAccountTemplate,
    managers: new Set((options.managers ?? []).map((m) => canonicalEmail(m) as string)),
    concealExistingAccounts: options.concealExistingAccounts ?? false,
    loginSessions: options.loginSessions,
    maxLinkedLogins,
    checkPassword: passwordChecker(options.passwordPolicy, options.logger ?? warningsLogger),
    lockout: resolveLockout(options.lockout),
    ipv6RateLimitPrefix: resolveIpv6Prefix(options.ipv6RateLimitPrefix),
  };
}

function resolveLockout(given: Partial<LockoutRule> | false | undefined): LockoutRule | false {
  if (given === false) return false;
  const rule = { ...DEFAULT_LOCKOUT, ...given };
  if (!Number.isInteger(rule.freeFailures) || rule.freeFailures < 0) throw configError('lockout.freeFailures must be a whole number >= 0');
  for (const name of ['firstDelayMs', 'maxDelayMs', 'windowMs'] as const) positiveMs(`lockout.${name}`, rule[name], 1);
  return rule;
}
