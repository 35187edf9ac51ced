import { AuthError } from '../../plugin-kit/basics';
import type { Account, LinkedLogin } from './account';

/** A stored access token: only its hash is the key. */
export interface AccessTokenRecord {
  UserId: string;
  /** ISO 8601 expiry. */
  Expires: string;
}

/** Thrown by `create` when the e-mail is taken (code `conflict`, reason `email_taken`). */
export class DuplicateEmailError extends AuthError {
  override readonly name = 'DuplicateEmailError';

  /** @param email - the address that is taken. */
  constructor(email: string) {
    super('conflict', `an account with the e-mail ${email} exists`, { reason: 'email_taken' });
  }
}

/**
 * What `linkLogin` did: linked it, found it linked to this account already, found it linked to
 * another account (`taken`), found the account at its limit (`full`), or found no account.
 */
export type LinkOutcome = 'linked' | 'already' | 'taken' | 'full' | 'no-account';

/**
 * Where accounts and access-token hashes live. All async. `create` is atomic on the e-mail (of
 * racing sign-ups exactly one wins); `update` is an atomic read-modify-write of one account.
 */
export interface AccountStore {
  /** Adds an account; throws {@link DuplicateEmailError} when the e-mail is taken. */
  create(account: Account): Promise<void>;
  /** The account with this id. */
  get(id: string): Promise<Account | undefined>;
  /** The account with this (normalised) e-mail. */
  getByEmail(email: string): Promise<Account | undefined>;
  /** Applies `change` to the stored account atomically; `undefined` from `change` leaves it as it was. */
  update(id: string, change: (account: Account) => Account | undefined): Promise<Account | undefined>;
  /**
   * Like `update`, and moves the account to the (normalised) e-mail `email` in the same atomic
   * step; throws {@link DuplicateEmailError} when another account has it (of racing changes to one
   * address exactly one wins).
   */
  changeEmail(id: string, email: string, change: (account: Account) => Account | undefined): Promise<Account | undefined>;
  /**
   * Links a login to an account, unless it is linked to any account already (of racing links of
   * one login exactly one wins) or the account has `max` links.
   */
  linkLogin(accountId: string, login: LinkedLogin, max: number): Promise<LinkOutcome>;
  /** Removes a link of an account; `false` when the account had no such link. */
  unlinkLogin(accountId: string, userId: string): Promise<boolean>;
  /** The logins linked to an account, oldest first. */
  loginsOf(accountId: string): Promise<LinkedLogin[]>;
  /** The id of the account a login (by its user id) is linked to. */
  accountOfLogin(userId: string): Promise<string | undefined>;
  /** Deletes an account, its access tokens and its links, freeing its e-mail; `false` when there was none. */
  delete(id: string): Promise<boolean>;
  /** A page of accounts (stable order) and the total count. */
  list(offset: number, limit: number): Promise<{ accounts: Account[]; total: number }>;
  /** Stores an access-token hash. */
  saveToken(hash: string, record: AccessTokenRecord): Promise<void>;
  /** The record of an access-token hash. */
  getToken(hash: string): Promise<AccessTokenRecord | undefined>;
  /** Deletes one access-token hash. */
  deleteToken(hash: string): Promise<void>;
  /** Deletes every token of a user but `keep`; returns how many. */
  deleteTokensOf(userId: string, keep?: string): Promise<number>;
  /** Releases resources. */
  close(): Promise<void>;
}
