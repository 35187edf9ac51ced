import type { MaybePromise } from '../token/hooks';
import type { Sender } from '../senders/sender';
import type { User } from '../token/user';

/** A change of a user's credentials that the owner is told about. */
export interface CredentialChange {
  /** What kind of credential. */
  kind: 'passkey' | 'linked login' | 'two-factor' | 'API key';
  /** Whether it was added or removed. */
  change: 'added' | 'removed';
  /** Which one, for people: a passkey's label, a linked login's provider. */
  detail?: string | undefined;
}

/** The machine name of a credential kind, as events carry it (`data.kind`). */
export const CREDENTIAL_KIND_CODES: Readonly<Record<CredentialChange['kind'], string>> = { passkey: 'passkey', 'linked login': 'linked_login', 'two-factor': 'totp', 'API key': 'api_key' };

/** Mail to the owner whenever a passkey, a linked login or two-factor is added or removed (`createAuth({ credentialNotices })`). */
export interface CredentialNoticeOptions {
  /** Delivers the notice (e.g. an `EmailSender`). */
  sender: Sender;
  /**
   * The address of a user's owner; `undefined` sends nothing. With the account service, pass
   * `accounts.ownerAddress` (its users' names are their e-mails).
   * @default the user's `email`
   */
  addressOf?: (user: User) => MaybePromise<string | undefined>;
  /**
   * The notice, with `{{.Name}}` (the user's name), `{{.What}}` (e.g. "a passkey (laptop) was added").
   * @default a short text that says what changed and what to do if it was not the owner
   */
  template?: string | undefined;
}

/** The request that made a change, as events record it (the shape of the event bus's `EventClient`). */
export interface ChangeClient {
  ip?: string | undefined;
  userAgent?: string | undefined;
  acceptLanguage?: string | undefined;
}

/**
 * Where credential changes are told: every passkey, linked login or second factor added or removed
 * becomes a security event (`credential.added`, `credential.removed`); the mails to the owner follow
 * from those events (`notifications`, or the older `credentialNotices`).
 */
export class CredentialNotices {
  /** @param recorded - told of every change. */
  constructor(private readonly recorded: (user: User, change: CredentialChange, client?: ChangeClient) => void) {}

  /** Tells of `change` to a credential of `user`, without waiting; `client` is the request's that made it. */
  notify(user: User, change: CredentialChange, client?: ChangeClient): void {
    this.recorded(user, change, client);
  }
}
