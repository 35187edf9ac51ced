import { createHash, randomBytes } from 'node:crypto';
import {
  canonicalEmail,
  safeEqual,
  hasUnusableChars,
  AuthError,
  type Logger,
  describeSendFailure,
  type Sender,
  renderTemplate,
  type Translations,
  deleteCredentials,
  moveCredentials,
  renameCredentials,
  type CredentialStore,
  logTo,
  errorName,
  type ImportedHashOptions,
} from '../../plugin-kit/helpers';
import { escapeHtml } from '../../plugin-kit/http';
import type { User } from '../../plugin-kit/sessions';
import type { PluginLockout } from '../../plugin-kit/plugin-api';
import type { LoginContext, LoginLinks } from '../../plugin-kit/providers';
import { emptyProfile, isAccountId, newAccount, PROFILE_FIELDS, publicAccount, type Account, type Profile, type PublicAccount, type StoredCode } from './account';
import { DuplicateEmailError, type AccountStore } from './account-store';
import { hashPassword, needsRehash, verifyPassword } from './passwords';
import { askLegacy, asksLegacy, type ResolvedLegacyLogin } from './legacy-login';
import { isLegacyDigest } from '../../plugin-kit/helpers';
import { IMPORTED } from './imported-password';
import type { AccountEventType, LoginSessions } from './account-options';
import { bridgeUser, legacyBridgeId, LinkedLogins, type AccountLogin } from './linked-logins';

/** The privilege that lets a user act on other users. */
export const MANAGE_USER = 'manage_user';

/** Settings of the {@link AccountService}. */
export interface AccountServiceSettings {
  store: AccountStore;
  sender: Sender;
  onlineThreshold: number;
  activationTemplate: string | undefined;
  bcryptRounds: number;
  /** What verifying imported password hashes needs (Firebase's project parameters). @default {} */
  importedHashes?: ImportedHashOptions | undefined;
  /** The system the app moves from, asked about people with no password here. @default undefined */
  legacyLogin?: ResolvedLegacyLogin | undefined;
  baseUrl: string;
  managers: ReadonlySet<string>;
  codeTtl: number;
  resetCodeTtl: number;
  resetTemplate: string | undefined;
  resetNoticeTemplate: string | undefined;
  keepCredentialsOnReset: boolean;
  emailChangeTemplate: string | undefined;
  emailChangeNoticeTemplate: string | undefined;
  concealExistingAccounts: boolean;
  existingAccountTemplate: string | undefined;
  logger: Logger;
  /** Growing delays after wrong passwords; absent: none. */
  lockout: PluginLockout | undefined;
  /** Throws 400 1.4 for a password the policy refuses. */
  checkPassword(password: string, email: string): Promise<void>;
  loginSessions: LoginSessions | undefined;
  maxLinkedLogins: number;
  /** The mails in the request's language when no template was given. */
  translations: Translations;
}

/** The account bridge to a direct provider: `auth.addDirectProvider(name, accounts.credentialChecker())`. */
export interface AccountCredentialChecker {
  /** The account's id (the user id hashes it) for the e-mail and password of an activated account, else `false`; `context.ip` keys the lockout. */
  check(user: string, passwd: string, context?: LoginContext): Promise<false | { subject: string; email: string }>;
  /** The canonical e-mail (trim, NFC, lower-case); `undefined` when the text is no e-mail address. */
  normalizeUser(user: string): string | undefined;
}

/** What `POST /tokens` answers. */
export interface IssuedToken {
  User: PublicAccount;
  ExpiredOn: string;
  AccessToken: string;
}

/** The caller of a profile route, from its bearer token. */
export interface Actor {
  account: Account;
  tokenHash: string;
}

const ACTIVATE = 'activate';
const RESET = 'reset';
const EMAIL_CHANGE = 'email';
/** A well-formed id no account has (ids are random): the store round trip of an unknown e-mail. */
const UNKNOWN_ID = '0'.repeat(24);
/** Every failure of a reset code answers the same: wrong, used, expired or no such account. */
const badResetCode = (): AuthError => new AuthError('bad_request', 'the reset code is wrong, used or expired', { reason: 'invalid_code' });
const MAX_PROFILE_VALUE = 256;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64url');
const invalid = (description: string): AuthError => new AuthError('bad_request', description);

function pageParam(value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(`paging parameters must be whole numbers from ${min} to ${max}`);
  return n;
}

/** "`name` is required", and when the body has the field in another case (`email` for `Email`), which spelling the service reads. */
function required(body: Record<string, unknown>, name: string): AuthError {
  const near = Object.keys(body).find((k) => k !== name && k.toLowerCase() === name.toLowerCase());
  return invalid(near === undefined ? `${name} is required` : `${name} is required (the field names are capitalised: send "${name}", not "${near}")`);
}

/** Reads a required string field of a parsed body. */
export function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw required(body, name);
  if (value.length > 1024) throw invalid(`${name} is too long`);
  return value;
}

/**
 * The account service's logic: sign-up with an e-mailed one-shot activation code, password-grant access
 * tokens (stored only as hashes), profiles, password change and the user list.
 */
/**
 * Runs the steps that follow a saved change, each whatever the others did: the change stands, so a
 * failing step is told to `failed` (a log line) and named in what comes back, never thrown.
 */
async function afterSaved(steps: ReadonlyArray<readonly [string, () => Promise<unknown>]>, failed: (what: string, err: unknown) => void): Promise<string[]> {
  const pending = new Set<string>();
  for (const [what, step] of steps) {
    try {
      await step();
    } catch (err) {
      pending.add(what);
      failed(what, err);
    }
  }
  return [...pending];
}

export class AccountService {
  private readonly dummyHash: Promise<string>;
  private readonly linked: LinkedLogins;
  private firebaseWarned = false;

  /** @param settings - store, sender, durations and managers. */
  constructor(private readonly settings: AccountServiceSettings) {
    this.linked = new LinkedLogins(settings.store, settings.loginSessions, settings.maxLinkedLogins);
    this.dummyHash = hashPassword(randomBytes(16).toString('hex'), settings.bcryptRounds);
    this.dummyHash.catch(() => undefined);
  }

  /** A mail's template: the app's when it gave one, else the catalog's in `locale` (the request's; absent: the default). */
  private mail(
    option: 'activationTemplate' | 'existingAccountTemplate' | 'resetTemplate' | 'resetNoticeTemplate' | 'emailChangeTemplate' | 'emailChangeNoticeTemplate',
    name: string,
    locale: string | undefined,
  ): string {
    return this.settings[option] ?? this.settings.translations.text(`mail.${name}`, locale) ?? '';
  }

  private email(body: Record<string, unknown>, field = 'Email'): string {
    const raw = body[field];
    if (typeof raw !== 'string' || raw === '') throw required(body, field);
    const email = canonicalEmail(raw);
    if (!email) throw new AuthError('bad_request', 'this is not an e-mail address', { reason: 'invalid_email' });
    return email;
  }

  private pendingCode(pwdHash: string): { code: string; stored: StoredCode } {
    const code = randomBytes(16).toString('hex');
    return { code, stored: { Hash: sha256(code), Expires: new Date(Date.now() + this.settings.codeTtl).toISOString(), For: sha256(pwdHash) } };
  }

  /**
   * Signs up: a new unactivated account, or, for an e-mail whose sign-up is not activated yet, a
   * replacement of that pending sign-up (new password, new code; earlier codes are void), so only
   * the owner of the mailbox can activate, and only with the password of the sign-up mailed last.
   * An activated e-mail gets 409 1.5, or with `concealExistingAccounts` a 202 and a notice mailed
   * to the owner. The mail goes out in the background.
   */
  async signup(body: Record<string, unknown>, locale?: string): Promise<void> {
    const email = this.email(body);
    await this.settings.loginSessions?.checkSignIn?.(email, 'signup');
    const pwd = stringField(body, 'Pwd');
    if (pwd !== stringField(body, 'PwdRepeat')) throw new AuthError('bad_request', 'Pwd and PwdRepeat differ', { reason: 'password_mismatch' });
    await this.settings.checkPassword(pwd, email);
    const hash = await hashPassword(pwd, this.settings.bcryptRounds);
    const { code, stored } = this.pendingCode(hash);
    const now = new Date().toISOString();
    const fresh = newAccount({ Email: email, Pwd: hash, Approved: false, ConfirmCodes: { [ACTIVATE]: stored } }, now);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.settings.store.create(fresh);
        this.accountEvent('account.created', fresh, 'owner');
        return this.mailInBackground(fresh, code, locale);
      } catch (err) {
        if (!(err instanceof DuplicateEmailError)) throw err;
      }
      const existing = await this.settings.store.getByEmail(email);
      if (existing === undefined) continue; // deleted in between: create again
      let replaced = false;
      const updated = await this.settings.store.update(existing.Id, (a) => {
        if (a.Approved) return undefined;
        replaced = true;
        return { ...a, Pwd: hash, OldPwd: [], ConfirmCodes: { [ACTIVATE]: stored }, Privilege: {}, Profile: emptyProfile(), JoinDay: now, LastActivity: now };
      });
      if (replaced && updated) return this.mailInBackground(updated, code, locale);
      if (!this.settings.concealExistingAccounts) throw new AuthError('conflict', 'an account with this e-mail exists', { reason: 'email_taken' });
      return this.send(
        email,
        renderTemplate(this.mail('existingAccountTemplate', 'existingAccount', locale), { Email: email }, this.settings.sender.contentType === 'text/html'),
        existing.Id,
        'notice of a sign-up attempt',
      );
    }
    throw new AuthError('conflict', 'an account with this e-mail exists', { reason: 'email_taken' });
  }

  /**
   * Mails a fresh code for a pending sign-up, only to whoever knows its password (`Pwd`): a stranger
   * cannot make the owner activate a password the owner did not choose. Answers the same in every case.
   */
  async resend(body: Record<string, unknown>, locale?: string): Promise<void> {
    const email = this.email(body);
    // It finishes a sign-up: the sign-up hooks judge the address as they did (SSO enforcement since, say).
    await this.settings.loginSessions?.checkSignIn?.(email, 'signup');
    const pwd = stringField(body, 'Pwd');
    const account = await this.settings.store.getByEmail(email);
    const pending = account && !account.Approved ? account : undefined;
    if (!(await verifyPassword(pwd, pending?.Pwd, this.dummyHash)) || !pending) return;
    const { code, stored } = this.pendingCode(pending.Pwd);
    const updated = await this.settings.store.update(pending.Id, (a) => (a.Approved || a.Pwd !== pending.Pwd ? undefined : { ...a, ConfirmCodes: { ...a.ConfirmCodes, [ACTIVATE]: stored } }));
    if (updated && updated.ConfirmCodes[ACTIVATE]?.Hash === stored.Hash) this.mailInBackground(updated, code, locale);
  }

  private mailInBackground(account: Account, code: string, locale: string | undefined): void {
    const link = `${this.settings.baseUrl}/active/${account.Id}?code=${code}`;
    const text = renderTemplate(
      this.mail('activationTemplate', 'activation', locale),
      { Email: account.Email, Id: account.Id, Code: code, Link: link },
      this.settings.sender.contentType === 'text/html',
    );
    this.send(account.Email, text, account.Id, 'activation mail');
  }

  private send(to: string, text: string, accountId: string, what: string): void {
    this.settings.sender.send(to, text).catch((err: unknown) => {
      logTo(this.settings.logger).warn('{mail} to account {account} not sent: {error}', { mail: what, account: accountId, error: describeSendFailure(err) });
    });
  }

  /** Activates with a one-shot code (constant-time compare, expires after `codeTtl`). */
  async activate(id: string, code: unknown): Promise<void> {
    if (!isAccountId(id)) throw new AuthError('bad_request', 'malformed account id', { reason: 'invalid_id' });
    if (typeof code !== 'string' || code === '' || code.length > 128) throw invalid('code is required');
    const account = await this.settings.store.get(id);
    if (!account) throw new AuthError('not_found', 'no such account', { reason: 'no_such_id' });
    if (!account.Approved) await this.settings.loginSessions?.checkSignIn?.(account.Email, 'signup');
    let accepted = false;
    await this.settings.store.update(id, (a) => {
      const stored = a.ConfirmCodes[ACTIVATE];
      if (!stored || Date.parse(stored.Expires) < Date.now() || !safeEqual(sha256(code), stored.Hash)) return undefined;
      // The code activates only the sign-up (password) it was mailed for.
      if (stored.For === undefined || !safeEqual(stored.For, sha256(a.Pwd))) return undefined;
      accepted = true;
      const { [ACTIVATE]: _used, ...rest } = a.ConfirmCodes;
      return { ...a, Approved: true, ConfirmCodes: rest, Privilege: this.privileges(a) };
    });
    if (!accepted) throw invalid('the code is wrong, used or expired');
    this.accountEvent('account.activated', account, 'owner');
  }

  /** Tells the bridge (the security events) of an account event. */
  private accountEvent(type: AccountEventType, account: Account, by: 'owner' | 'manager'): void {
    const bridge = this.settings.loginSessions;
    if (bridge?.onEvent) bridge.onEvent(type, bridgeUser(bridge, account).id, by);
  }

  private privileges(account: Account): Record<string, boolean> {
    return this.settings.managers.has(account.Email) ? { ...account.Privilege, [MANAGE_USER]: true } : account.Privilege;
  }

  /**
   * Checks e-mail and password (bcrypt off the event loop); the account when they match. Wrong
   * passwords from one IP for one e-mail slow the next attempts from there (a lockout: see `PluginLockout`).
   */
  private async checkCredentials(rawEmail: string, password: string, ip: string): Promise<Account | undefined> {
    const email = canonicalEmail(rawEmail);
    const lockout = this.settings.lockout;
    if (email !== undefined) await lockout?.check(email, ip);
    let account = email ? await this.settings.store.getByEmail(email) : undefined;
    if (!this.firebaseWarned && account?.Pwd.startsWith(`${IMPORTED}$firebase-scrypt$`) === true && this.settings.importedHashes?.firebase === undefined) {
      // Once: else every imported Firebase user is refused with nothing in the log to say why.
      this.firebaseWarned = true;
      logTo(this.settings.logger).warn('an imported Firebase password was checked, but importedHashes.firebase is not set: every Firebase password is refused until it is', {});
    }
    let ok = await verifyPassword(password, account?.Pwd, this.dummyHash, this.settings.importedHashes);
    const legacy = this.settings.legacyLogin;
    if (!ok && email !== undefined && legacy !== undefined && asksLegacy(account)) {
      account = await this.movedIn(legacy, email, password, account);
      ok = account !== undefined;
    }
    if (email !== undefined) await (ok && account ? lockout?.succeeded(email, ip) : lockout?.failed(email, ip));
    if (!ok || account === undefined) return undefined;
    if (isLegacyDigest(account.Pwd) && account.Approved) return this.forcedReset(account);
    return needsRehash(account.Pwd) ? this.rehashed(account, password) : account;
  }

  /**
   * The right password, but kept as a bare MD5 or SHA digest (imported with --legacy-hashes): such
   * digests are cracked cheaply, so the login is refused and a reset link is mailed; the new
   * password replaces the digest.
   */
  private async forcedReset(account: Account): Promise<never> {
    // One link while it is valid: a second login must not void the code the first one mailed.
    const pending = account.ConfirmCodes[RESET];
    if (pending === undefined || Date.parse(pending.Expires) <= Date.now()) await this.forgotPassword({ Email: account.Email });
    throw new AuthError('forbidden', 'this password was kept by an older system and must be replaced: a link to set a new one was mailed to you', { reason: 'password_reset_required' });
  }

  /**
   * Lazy migration: the old system said yes to this e-mail and password, so the person moves in
   * with that password under authgate's hash: a new account, or the password an imported account
   * (or a sign-up never activated) lacked. `undefined` when the old system said no.
   */
  private async movedIn(legacy: ResolvedLegacyLogin, email: string, password: string, account: Account | undefined): Promise<Account | undefined> {
    const verdict = await askLegacy(legacy, email, password);
    if (verdict === false) return undefined;
    const hash = await hashPassword(password, this.settings.bcryptRounds);
    const named = (p: Profile): Profile => ({
      ...p,
      FirstName: p.FirstName || (verdict.firstName ?? '').slice(0, 100),
      LastName: p.LastName || (verdict.lastName ?? '').slice(0, 100),
    });
    if (account !== undefined) {
      let moved = false;
      const updated = await this.settings.store.update(account.Id, (a) => {
        moved = false;
        // Only while it still has no password of its own: one set meanwhile (a reset, an activation) stays.
        if (!asksLegacy(a)) return undefined;
        // An activated account takes a password only from an answer that vouches for its address:
        // else whoever registered that address unverified with the old system would get in.
        if (a.Approved && verdict.emailVerified !== true) return undefined;
        moved = true;
        return { ...a, Pwd: hash, ConfirmCodes: {}, Approved: a.Approved || verdict.emailVerified === true, Profile: named(a.Profile) };
      });
      return moved ? updated : undefined;
    }
    const fresh = newAccount({ Email: email, Pwd: hash, Approved: verdict.emailVerified === true, Profile: named(emptyProfile()) });
    try {
      await this.settings.store.create(fresh);
    } catch (err) {
      if (!(err instanceof DuplicateEmailError)) throw err;
      // Another login moved them in at the same moment: that account, if this password is its password.
      const other = await this.settings.store.getByEmail(email);
      return other !== undefined && (await verifyPassword(password, other.Pwd, this.dummyHash)) ? other : undefined;
    }
    this.accountEvent('account.created', fresh, 'owner');
    return fresh;
  }

  /** An imported (or older) hash replaced by authgate's own, now that the password is known to be right; the account as it was if that fails. */
  private async rehashed(account: Account, password: string): Promise<Account> {
    const hash = await hashPassword(password, this.settings.bcryptRounds);
    // Only the hash that was checked is replaced: a password changed meanwhile stays.
    const updated = await this.settings.store.update(account.Id, (a) => (a.Pwd === account.Pwd ? { ...a, Pwd: hash } : undefined)).catch(() => undefined);
    return updated ?? account;
  }

  /** The password grant: a random access token, stored only as a hash, valid for `onlineThreshold`. */
  async issueToken(fields: Record<string, unknown>, ip: string): Promise<IssuedToken> {
    const grant = fields.grant_type;
    if (typeof grant !== 'string' || grant === '') throw invalid('grant_type is required');
    if (grant !== 'password')
      throw new AuthError(
        'bad_request',
        this.settings.loginSessions?.sessionUser ? 'grant_type must be password, or session (a POST from a signed-in browser)' : 'only grant_type=password is supported',
        { reason: 'invalid_grant_type' },
      );
    const email = stringField(fields, 'email');
    const password = stringField(fields, 'password');
    await this.settings.loginSessions?.checkSignIn?.(email, 'password');
    const account = await this.checkCredentials(email, password, ip);
    if (!account) throw new AuthError('unauthorized', 'wrong e-mail or password', { reason: 'invalid_credential' });
    if (!account.Approved) throw new AuthError('forbidden', 'the account is not activated', { reason: 'invalid_credential' });
    await this.refuseBanned(account);
    await this.checkSecondFactor(account, fields.otp, ip);
    return this.mintToken(account);
  }

  /**
   * The session grant: an access token for the account whose login `user` is (the user of a
   * verified authgate session, see `LoginSessions.sessionUser`). Its second factor was asked at that login.
   */
  async issueSessionToken(user: User): Promise<IssuedToken> {
    const bridge = this.settings.loginSessions;
    const email = canonicalEmail(user.name);
    const account = bridge && email !== undefined ? await this.settings.store.getByEmail(email) : undefined;
    // The name only finds the account; the signed user id proves the session is that account's login.
    if (!bridge || !account || !safeEqual(bridgeUser(bridge, account).id, user.id))
      throw new AuthError('unauthorized', 'this session is not the login of an account', { reason: 'invalid_credential' });
    if (!account.Approved) throw new AuthError('forbidden', 'the account is not activated', { reason: 'invalid_credential' });
    await this.refuseBanned(account);
    await this.migrateCredentials(account);
    return this.mintToken(account);
  }

  /** A random access token for `account`, stored only as a hash, valid for `onlineThreshold`. */
  private async mintToken(account: Account): Promise<IssuedToken> {
    const token = randomBytes(32).toString('base64');
    const expires = new Date(Date.now() + this.settings.onlineThreshold).toISOString();
    await this.settings.store.saveToken(sha256(token), { UserId: account.Id, Expires: expires });
    const updated = await this.settings.store.update(account.Id, (a) => ({ ...a, LastActivity: new Date().toISOString(), Privilege: this.privileges(a) }));
    return { User: publicAccount(updated ?? account), ExpiredOn: expires, AccessToken: token };
  }

  /** With `loginSessions.isBanned`: a banned account gets no token, and its tokens stop working (403). */
  private async refuseBanned(account: Account): Promise<void> {
    const bridge = this.settings.loginSessions;
    if (bridge?.isBanned && (await bridge.isBanned(bridgeUser(bridge, account).id))) throw new AuthError('forbidden', 'this account is banned', { reason: 'invalid_credential' });
  }

  /** With `loginSessions.twoFactor`: an account with two-factor on needs a good `otp` too (401 2.3, 429 past the limits). */
  private async checkSecondFactor(account: Account, otp: unknown, ip: string): Promise<void> {
    const bridge = this.settings.loginSessions;
    await this.migrateCredentials(account);
    const userId = bridge && bridgeUser(bridge, account).id;
    if (!bridge?.twoFactor || userId === undefined || !(await bridge.twoFactor.isOn(userId))) return;
    if (typeof otp !== 'string' || otp === '' || otp.length > 32)
      throw new AuthError('unauthorized', 'two-factor authentication is on: send otp, a code of the authenticator app or a recovery code', { reason: 'second_factor_wrong' });
    try {
      await bridge.twoFactor.check(userId, otp.trim(), ip);
    } catch (err) {
      if (err instanceof AuthError && err.code === 'forbidden') throw new AuthError('unauthorized', 'the second factor is wrong or was used already', { reason: 'second_factor_wrong' });
      throw err;
    }
  }

  /** The caller behind `Authorization: Bearer <token>`; 401 for a missing, unknown or expired token. */
  async authenticate(header: string | undefined): Promise<Actor> {
    const token = /^Bearer\s+(\S{1,256})$/i.exec(header ?? '')?.[1];
    if (!token) throw new AuthError('unauthorized', 'an access token is required (Authorization: Bearer <AccessToken>)', { reason: 'invalid_credential' });
    const tokenHash = sha256(token);
    const record = await this.settings.store.getToken(tokenHash);
    if (!record || Date.parse(record.Expires) <= Date.now()) {
      if (record) await this.settings.store.deleteToken(tokenHash);
      throw new AuthError('unauthorized', 'the access token is unknown or expired', { reason: 'invalid_credential' });
    }
    const account = await this.settings.store.get(record.UserId);
    if (!account) throw new AuthError('unauthorized', 'the access token is unknown or expired', { reason: 'invalid_credential' });
    await this.refuseBanned(account);
    return { account, tokenHash };
  }

  /** Revokes the presented token. */
  async revoke(actor: Actor): Promise<void> {
    await this.settings.store.deleteToken(actor.tokenHash);
  }

  private async target(actor: Actor, id: string): Promise<Account> {
    if (!isAccountId(id)) throw new AuthError('bad_request', 'malformed account id', { reason: 'invalid_id' });
    if (actor.account.Id !== id && !actor.account.Privilege[MANAGE_USER]) throw new AuthError('forbidden', 'acting on another user needs the manage_user privilege', { reason: 'invalid_credential' });
    const account = actor.account.Id === id ? actor.account : await this.settings.store.get(id);
    if (!account) throw new AuthError('not_found', 'no such account', { reason: 'no_such_id' });
    return account;
  }

  /** The profile of `id` (own, or any with manage_user). */
  async profile(actor: Actor, id: string): Promise<Profile & { Id: string; Email: string }> {
    const account = await this.target(actor, id);
    return { ...account.Profile, Id: account.Id, Email: account.Email };
  }

  /** Replaces profile fields given in `body` (strings up to 256 characters, known fields only). */
  async updateProfile(actor: Actor, id: string, body: Record<string, unknown>): Promise<Profile & { Id: string; Email: string }> {
    await this.target(actor, id);
    const changes: Partial<Profile> = {};
    for (const [key, value] of Object.entries(body)) {
      if (!(PROFILE_FIELDS as readonly string[]).includes(key)) throw invalid(`unknown profile field ${key.slice(0, 64)}`);
      if (typeof value !== 'string' || value.length > MAX_PROFILE_VALUE || hasUnusableChars(value)) throw invalid(`${key} must be text of at most ${MAX_PROFILE_VALUE} characters`);
      // eslint-disable-next-line no-restricted-syntax -- only the PROFILE_FIELDS pass
      changes[key as keyof Profile] = value;
    }
    const updated = await this.settings.store.update(id, (a) => ({ ...a, Profile: { ...a.Profile, ...changes } }));
    if (!updated) throw new AuthError('not_found', 'no such account', { reason: 'no_such_id' });
    return { ...updated.Profile, Id: updated.Id, Email: updated.Email };
  }

  /**
   * Ends every session made through the account bridge (`loginSessions`): before a credential
   * change, so a failure changes nothing, and after it, for logins that raced the change.
   */
  private async endLoginSessions(account: Account): Promise<void> {
    const bridge = this.settings.loginSessions;
    if (bridge === undefined) return;
    await bridge.sessions.revokeAll(bridgeUser(bridge, account).id);
    // Sessions begun before the bridge's ids followed the account (they followed the e-mail).
    await bridge.sessions.revokeAll(legacyBridgeId(bridge, account));
  }

  /**
   * Moves passkeys and the second factor an account has under the bridge's former id (the hash of
   * its e-mail) to its id now (the hash of the account's id): once, at the first use after the change.
   */
  private async migrateCredentials(account: Account): Promise<void> {
    const bridge = this.settings.loginSessions;
    if (!bridge?.credentials) return;
    const legacy = legacyBridgeId(bridge, account);
    // Checked first: this runs at every login of the account, and moves something once at most.
    if ((await bridge.credentials.list(legacy)).length === 0) return;
    if (bridge.onUserIdChanged) await bridge.onUserIdChanged(legacy, bridgeUser(bridge, account));
    else await moveCredentials(bridge.credentials, legacy, bridgeUser(bridge, account));
  }

  /**
   * The rest of a saved credential change (password, e-mail): other access tokens and, once more,
   * the sessions of logins that raced the change. The change stands whatever happens here, so the
   * answer must say it was saved: a failing step is logged, not answered (the sessions were ended
   * once before the change already).
   */
  private async finishCredentialChange(account: Account, accessTokens: { keep?: string } | false): Promise<void> {
    const steps: Array<[string, () => Promise<unknown>]> = [['sessions', () => this.endLoginSessions(account)]];
    if (accessTokens) steps.unshift(['access tokens', () => this.settings.store.deleteTokensOf(account.Id, accessTokens.keep)]);
    await afterSaved(steps, (what, err) =>
      logTo(this.settings.logger).warn('account {account}: the change was saved, but ending its {what} again failed: {error}', { account: account.Id, what, error: errorName(err) }),
    );
  }

  /** Saves a new password; the owner must give the current one; other access tokens and every session of the account bridge are revoked. */
  async changePassword(actor: Actor, id: string, body: Record<string, unknown>): Promise<void> {
    const account = await this.target(actor, id);
    const own = actor.account.Id === id;
    const next = stringField(body, 'NewPwd');
    if (next !== stringField(body, 'NewPwdRepeat')) throw new AuthError('bad_request', 'NewPwd and NewPwdRepeat differ', { reason: 'password_mismatch' });
    await this.settings.checkPassword(next, account.Email);
    if (own && !(await verifyPassword(stringField(body, 'Pwd'), account.Pwd, this.dummyHash))) {
      throw new AuthError('forbidden', 'the current password is wrong', { reason: 'invalid_password' });
    }
    const hash = await hashPassword(next, this.settings.bcryptRounds);
    await this.endLoginSessions(account);
    await this.settings.store.update(id, (a) => ({ ...a, Pwd: hash, OldPwd: [a.Pwd, ...a.OldPwd].slice(0, 5) }));
    await this.finishCredentialChange(account, { keep: own ? actor.tokenHash : undefined });
    this.accountEvent('password.changed', account, own ? 'owner' : 'manager');
  }

  /**
   * Starts moving an account to `NewEmail` (the owner gives `Pwd`; a manager needs none): a
   * one-shot code goes to the new address (valid `activationCodeTtl`; a new request voids the
   * earlier one) and a notice to the old one. Nothing moves until the code is used.
   */
  async requestEmailChange(actor: Actor, id: string, body: Record<string, unknown>, locale?: string): Promise<void> {
    const account = await this.target(actor, id);
    if (actor.account.Id === id && !(await verifyPassword(stringField(body, 'Pwd'), account.Pwd, this.dummyHash))) {
      throw new AuthError('forbidden', 'the current password is wrong', { reason: 'invalid_password' });
    }
    const next = this.email(body, 'NewEmail');
    if (next === account.Email) throw new AuthError('bad_request', 'this is the e-mail of the account already', { reason: 'invalid_email' });
    const taken = await this.settings.store.getByEmail(next);
    if (taken && !this.settings.concealExistingAccounts) throw new AuthError('conflict', 'an account with this e-mail exists', { reason: 'email_taken' });
    const html = this.settings.sender.contentType === 'text/html';
    if (taken) {
      // As for a free address, seen from the old one: its notice goes out; the taken address's owner gets a notice, no code.
      this.send(next, renderTemplate(this.mail('existingAccountTemplate', 'existingAccount', locale), { Email: next }, html), taken.Id, 'notice of an e-mail change attempt');
    } else {
      const code = randomBytes(16).toString('hex');
      const stored: StoredCode = { Hash: sha256(code), Expires: new Date(Date.now() + this.settings.codeTtl).toISOString(), For: next };
      await this.settings.store.update(id, (a) => ({ ...a, ConfirmCodes: { ...a.ConfirmCodes, [EMAIL_CHANGE]: stored } }));
      this.send(next, renderTemplate(this.mail('emailChangeTemplate', 'emailChange', locale), { Email: account.Email, NewEmail: next, Code: code }, html), id, 'e-mail change code');
    }
    this.send(account.Email, renderTemplate(this.mail('emailChangeNoticeTemplate', 'emailChangeNotice', locale), { Email: account.Email, NewEmail: next }, html), id, 'e-mail change notice');
  }

  /**
   * Moves the account to the address its code was mailed to, in one atomic step with the code's
   * use (of racing moves to one address one wins, 409 1.5). The sessions of the old address's
   * logins end (the account bridge's user id follows the e-mail).
   */
  async confirmEmailChange(actor: Actor, id: string, body: Record<string, unknown>): Promise<Profile & { Id: string; Email: string; Pending?: string[] }> {
    const account = await this.target(actor, id);
    const code = stringField(body, 'Code');
    const stored = account.ConfirmCodes[EMAIL_CHANGE];
    const bad = (): AuthError => new AuthError('bad_request', 'the code is wrong, used or expired', { reason: 'invalid_code' });
    if (!stored?.For || Date.parse(stored.Expires) <= Date.now() || !safeEqual(sha256(code), stored.Hash)) throw bad();
    let updated: Account | undefined;
    // Whether this call used the code: the store applies the last call of `change` it makes, so of
    // racing confirmations exactly one sees the code unused there (the others answer 400, and move nothing again).
    let usedHere = false;
    try {
      updated = await this.settings.store.changeEmail(id, stored.For, (a) => {
        usedHere = a.ConfirmCodes[EMAIL_CHANGE]?.Hash === stored.Hash;
        if (!usedHere) return undefined;
        const { [EMAIL_CHANGE]: _used, ...rest } = a.ConfirmCodes;
        return { ...a, ConfirmCodes: rest };
      });
    } catch (err) {
      if (err instanceof DuplicateEmailError) throw new AuthError('conflict', 'an account with this e-mail exists', { reason: 'email_taken' });
      throw err;
    }
    if (!usedHere || updated?.Email !== stored.For) throw bad();
    const changed = updated;
    // Saved: from here the answer says so. What follows is logged when it fails, and named in
    // `Pending` (answered 202): nothing of it may turn a saved change into a 503 the user retries
    // with a used code.
    await this.finishCredentialChange(account, false);
    this.accountEvent('email.changed', changed, actor.account.Id === id ? 'owner' : 'manager');
    const bridge = this.settings.loginSessions;
    // The bridge's user id stays (it follows the account); credentials still under the old address's
    // former id move (again at every login, until they have), and passkeys take the new name.
    const steps: Array<[string, () => Promise<unknown>]> = [
      ['credentials', () => this.migrateCredentials(account)],
      ['passkey names', async () => (bridge?.credentials ? renameCredentials(bridge.credentials, bridgeUser(bridge, changed)) : undefined)],
    ];
    const pending = await afterSaved(steps, (what, err) =>
      logTo(this.settings.logger).warn('account {account}: the e-mail change was saved, but updating its {what} failed: {error}', { account: account.Id, what, error: errorName(err) }),
    );
    return { ...changed.Profile, Id: changed.Id, Email: changed.Email, ...(pending.length > 0 ? { Pending: pending } : {}) };
  }

  /**
   * Deletes an account: the owner gives `Pwd`, a manager needs none. Its access tokens and every
   * session of its logins end (before, so a failure leaves it usable, and after), its avatar goes,
   * and its e-mail can sign up again.
   */
  async deleteAccount(actor: Actor, id: string, body: Record<string, unknown>): Promise<{ pending?: string[] }> {
    const account = await this.target(actor, id);
    if (actor.account.Id === id && !(await verifyPassword(stringField(body, 'Pwd'), account.Pwd, this.dummyHash))) {
      throw new AuthError('forbidden', 'the current password is wrong', { reason: 'invalid_password' });
    }
    await this.endLoginSessions(account);
    if (!(await this.settings.store.delete(id))) throw new AuthError('not_found', 'no such account', { reason: 'no_such_id' });
    // Deleted: from here the answer says so, naming what failed (a retry would find no account).
    // What is left is keyed by the account's own id, which no later account ever gets.
    this.accountEvent('account.deleted', account, actor.account.Id === id ? 'owner' : 'manager');
    const bridge = this.settings.loginSessions;
    const steps: Array<[string, () => Promise<unknown>]> = [['sessions', () => this.endLoginSessions(account)]];
    for (const userId of bridge === undefined ? [] : [bridgeUser(bridge, account).id, legacyBridgeId(bridge, account)]) {
      steps.push(['avatar', async () => bridge?.avatars?.removeFor(userId)]);
      if (bridge?.credentials) steps.push(['credentials', () => deleteCredentials(bridge.credentials as CredentialStore, userId)]);
      steps.push(["the plugins' records", async () => bridge?.onUserDeleted?.(userId)]);
    }
    const pending = await afterSaved(steps, (what, err) =>
      logTo(this.settings.logger).warn('account {account}: the account was deleted, but removing its {what} failed: {error}', { account: account.Id, what, error: errorName(err) }),
    );
    return pending.length === 0 ? {} : { pending };
  }

  /** The logins of account `id` (own, or any with manage_user): its own first, then the linked ones. */
  async logins(actor: Actor, id: string): Promise<AccountLogin[]> {
    return this.linked.list(await this.target(actor, id));
  }

  /** Unlinks a login from account `id` (own, or any with manage_user), keeping a way in; its sessions end. */
  async unlinkLogin(actor: Actor, id: string, userId: string): Promise<void> {
    if (userId === '' || userId.length > 512 || hasUnusableChars(userId)) throw invalid('malformed login id');
    const account = await this.target(actor, id);
    const provider = await this.linked.unlink(account, userId);
    const text = `On your account ${account.Email}, the linked ${provider} login was removed. If it was not you, reset your password: someone has your session.\n`;
    this.send(account.Email, this.settings.sender.contentType === 'text/html' ? escapeHtml(text) : text, account.Id, 'unlink notice');
  }

  /**
   * The address of the owner of a user of the account bridge (the account its name names, when
   * its id is that account's), for `createAuth({ credentialNotices: { addressOf: accounts.ownerAddress } })`.
   */
  async ownerAddress(user: User): Promise<string | undefined> {
    const bridge = this.settings.loginSessions;
    const email = bridge === undefined ? undefined : canonicalEmail(user.name);
    const account = email === undefined ? undefined : await this.settings.store.getByEmail(email);
    return bridge !== undefined && account !== undefined && bridgeUser(bridge, account).id === user.id ? account.Email : undefined;
  }

  /** The links for `auth.useLoginLinks(accounts.loginLinks())`: logins linked to an account log in as it. */
  loginLinks(): LoginLinks {
    return this.linked.loginLinks();
  }

  /** A page of users without secrets (manage_user only); `offset` 0+, `limit` 1 to 100 (default 20). */
  async list(actor: Actor, rawOffset: unknown, rawLimit: unknown): Promise<{ Items: PublicAccount[]; Total: number; Offset: number; Limit: number }> {
    if (!actor.account.Privilege[MANAGE_USER]) throw new AuthError('forbidden', 'listing users needs the manage_user privilege', { reason: 'invalid_credential' });
    const offset = pageParam(rawOffset, 0, 0, 1_000_000);
    const limit = pageParam(rawLimit, 20, 1, 100);
    const page = await this.settings.store.list(offset, limit);
    return { Items: page.accounts.map(publicAccount), Total: page.total, Offset: offset, Limit: limit };
  }

  /**
   * A credential checker for `addDirectProvider`: e-mail + password of an activated account. Its
   * `normalizeUser` gives the canonical e-mail, so every spelling of an address is one user id.
   */
  credentialChecker(): AccountCredentialChecker {
    return {
      check: async (user, passwd, context) => {
        const account = await this.checkCredentials(user, passwd, context?.ip ?? '');
        if (!account) return false;
        // The right password of a sign-up not activated yet: say so, as POST /tokens does.
        if (account.Approved !== true) throw new AuthError('forbidden', 'the account is not activated: open the link in the activation mail', { reason: 'not_activated' });
        await this.migrateCredentials(account);
        // The address is verified (activation needs its mail): the token carries it, so `isAdmin: (u) => u.email === ...` matches.
        return { subject: account.Id, email: account.Email };
      },
      normalizeUser: (user) => canonicalEmail(user),
    };
  }

  /**
   * Mails a one-shot password-reset code (stored as a hash, valid `resetCodeTtl`; a new request
   * voids the earlier code) to an activated account. Answers the same whether the account exists
   * or not; the mail goes out in the background, and an unknown e-mail costs a store round trip too.
   */
  async forgotPassword(body: Record<string, unknown>, locale?: string): Promise<void> {
    const email = this.email(body);
    await this.settings.loginSessions?.checkSignIn?.(email, 'recovery');
    const account = await this.settings.store.getByEmail(email);
    const code = randomBytes(16).toString('hex');
    const stored: StoredCode = { Hash: sha256(code), Expires: new Date(Date.now() + this.settings.resetCodeTtl).toISOString() };
    const target = account?.Approved ? account.Id : UNKNOWN_ID;
    const updated = await this.settings.store.update(target, (a) => (a.Approved ? { ...a, ConfirmCodes: { ...a.ConfirmCodes, [RESET]: stored } } : undefined));
    if (updated?.ConfirmCodes[RESET]?.Hash !== stored.Hash) return;
    const text = renderTemplate(
      this.mail('resetTemplate', 'reset', locale),
      { Email: updated.Email, EmailParam: encodeURIComponent(updated.Email), Code: code },
      this.settings.sender.contentType === 'text/html',
    );
    this.send(updated.Email, text, updated.Id, 'password-reset mail');
  }

  /**
   * Sets a new password with a reset code: the code is used up in the same atomic update that
   * saves the password (of two racing resets one wins); then every access token and every session
   * of the account's logins is revoked. Any bad code answers 400 2.0 and changes nothing.
   */
  async resetPassword(body: Record<string, unknown>, ip: string, locale?: string): Promise<void> {
    const email = this.email(body);
    await this.settings.loginSessions?.checkSignIn?.(email, 'recovery');
    const code = stringField(body, 'Code');
    const next = stringField(body, 'NewPwd');
    if (next !== stringField(body, 'NewPwdRepeat')) throw new AuthError('bad_request', 'NewPwd and NewPwdRepeat differ', { reason: 'password_mismatch' });
    await this.settings.checkPassword(next, email);
    const account = await this.settings.store.getByEmail(email);
    const stored = account?.ConfirmCodes[RESET];
    if (!account || !stored || Date.parse(stored.Expires) <= Date.now() || !safeEqual(sha256(code), stored.Hash)) throw badResetCode();
    // The mailbox alone must not undo two-factor: a reset of an account with it on needs the second factor too.
    await this.checkSecondFactor(account, body.Otp, ip);
    const hash = await hashPassword(next, this.settings.bcryptRounds);
    // Before the password is saved: a failure here leaves the code unused, to try again. The
    // credentials go before the sessions, which would take the apps they let in with them unnamed.
    const removed = this.settings.keepCredentialsOnReset ? [] : await this.removeAddedCredentials(account);
    await this.endLoginSessions(account);
    const updated = await this.settings.store.update(account.Id, (a) => {
      if (a.ConfirmCodes[RESET]?.Hash !== stored.Hash) return undefined;
      const { [RESET]: _used, ...rest } = a.ConfirmCodes;
      return { ...a, Pwd: hash, OldPwd: [a.Pwd, ...a.OldPwd].slice(0, 5), ConfirmCodes: rest };
    });
    if (updated?.Pwd !== hash) throw badResetCode();
    await this.finishCredentialChange(account, {});
    this.accountEvent('password.reset', account, 'owner');
    const html = this.settings.sender.contentType === 'text/html';
    this.send(
      account.Email,
      renderTemplate(
        this.mail('resetNoticeTemplate', 'resetNotice', locale),
        { Email: account.Email, Removed: removed.length === 0 ? (this.settings.translations.text('mail.resetNotice.nothing', locale) ?? 'nothing else') : removed.join(' and ') },
        html,
      ),
      account.Id,
      'password-reset notice',
    );
  }

  /**
   * Removes the credentials besides the password that a stolen session could have added: the
   * account's passkeys and its linked logins (their sessions end with the account's). The second
   * factor stays (the reset needed it). What was removed, for the notice ("2 passkeys").
   */
  private async removeAddedCredentials(account: Account): Promise<string[]> {
    const bridge = this.settings.loginSessions;
    if (bridge === undefined) return [];
    const removed: string[] = [];
    if (bridge.onCredentialsReset) {
      await this.migrateCredentials(account);
      removed.push(...(await bridge.onCredentialsReset(bridgeUser(bridge, account).id)));
    } else if (bridge.credentials) {
      await this.migrateCredentials(account);
      const passkeys = (await bridge.credentials.list(bridgeUser(bridge, account).id)).filter((c) => c.kind === 'passkey');
      for (const passkey of passkeys) await bridge.credentials.delete(passkey.id);
      if (passkeys.length > 0) removed.push(`${passkeys.length} passkey${passkeys.length === 1 ? '' : 's'}`);
    }
    const links = await this.settings.store.loginsOf(account.Id);
    for (const link of links) await this.settings.store.unlinkLogin(account.Id, link.UserId);
    if (links.length > 0) removed.push(`${links.length} linked login${links.length === 1 ? '' : 's'} (${links.map((l) => l.Provider).join(', ')})`);
    return removed;
  }

  /** Grants manage_user to the account with this e-mail; `false` when there is none. */
  async grantManageUser(rawEmail: string): Promise<boolean> {
    const email = canonicalEmail(rawEmail);
    const account = email ? await this.settings.store.getByEmail(email) : undefined;
    if (!account) return false;
    await this.settings.store.update(account.Id, (a) => ({ ...a, Privilege: { ...a.Privilege, [MANAGE_USER]: true } }));
    return true;
  }
}
