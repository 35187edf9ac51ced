import { randomBytes } from 'node:crypto';
/** Profile fields a user may read and update. */
export interface Profile {
  FirstName: string;
  LastName: string;
  MiddleName: string;
  NickName: string;
  Address: string;
  Phone: string;
  Company: string;
}

/** The profile field names, in order. */
export const PROFILE_FIELDS: ReadonlyArray<keyof Profile> = ['FirstName', 'LastName', 'MiddleName', 'NickName', 'Address', 'Phone', 'Company'];

/** A one-shot code as stored: only its hash and expiry. */
export interface StoredCode {
  Hash: string;
  Expires: string;
  /** For an activation code: a hash of the password hash of the sign-up it was mailed for. */
  For?: string;
}

/** An account as stored (field names of kidstuff/WebAuth). */
export interface Account {
  /** 24 lower-case hex characters. */
  Id: string;
  /** Canonical e-mail (trimmed, NFC, lower-cased); unique. */
  Email: string;
  /** bcrypt hash of the password. */
  Pwd: string;
  /** bcrypt hashes of earlier passwords (newest first). */
  OldPwd: string[];
  /** Activated. */
  Approved: boolean;
  /** Pending one-shot codes by purpose. */
  ConfirmCodes: Record<string, StoredCode>;
  /** Privileges, e.g. `manage_user`. */
  Privilege: Record<string, boolean>;
  /** The profile. */
  Profile: Profile;
  /** ISO 8601 time of sign-up. */
  JoinDay: string;
  /** ISO 8601 time of the last token issue. */
  LastActivity: string;
  /**
   * What `npx authgate import` gave the account beside itself (`login:<provider>:<id>`,
   * `member:<org>`, `owner:<org>`, `admin`, `totp`): a later run never gives back what was taken
   * away since. @default absent (not imported)
   */
  Imported?: string[] | undefined;
}

/** A login linked to an account: its logins with that provider log in as the account. */
export interface LinkedLogin {
  /** The login's own user id (e.g. `github_<sha1>`): linked to one account at most. */
  UserId: string;
  /** The provider's name. */
  Provider: string;
  /** The name the provider gave when it was linked. */
  Name: string;
  /** ISO 8601 time of linking. */
  Linked: string;
}

/** The account as answered: secrets emptied. */
export type PublicAccount = Omit<Account, 'Pwd' | 'OldPwd' | 'ConfirmCodes' | 'Imported'> & { Pwd: ''; OldPwd: []; ConfirmCodes: Record<string, never> };

/** The account without its secrets (`Pwd`, `OldPwd`, `ConfirmCodes` emptied). */
export function publicAccount(account: Account): PublicAccount {
  const { Imported: _imported, ...shown } = account;
  return { ...shown, Pwd: '', OldPwd: [], ConfirmCodes: {} };
}

/**
 * A new account: no earlier passwords, no privileges, joined now. `Id` defaults to 24 random hex
 * characters; `ConfirmCodes` to none; `Profile` to an empty one.
 */
export function newAccount(fields: Pick<Account, 'Email' | 'Pwd' | 'Approved'> & Partial<Pick<Account, 'Id' | 'ConfirmCodes' | 'Profile'>>, now = new Date().toISOString()): Account {
  return {
    Id: fields.Id ?? randomBytes(12).toString('hex'),
    Email: fields.Email,
    Pwd: fields.Pwd,
    OldPwd: [],
    Approved: fields.Approved,
    ConfirmCodes: fields.ConfirmCodes ?? {},
    Privilege: {},
    Profile: fields.Profile ?? emptyProfile(),
    JoinDay: now,
    LastActivity: now,
  };
}

/** An empty profile. */
export function emptyProfile(): Profile {
  return { FirstName: '', LastName: '', MiddleName: '', NickName: '', Address: '', Phone: '', Company: '' };
}

/** `true` for a well-formed account id. */
export function isAccountId(id: string): boolean {
  return /^[0-9a-f]{24}$/.test(id);
}
