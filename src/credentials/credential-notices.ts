import { configError } from '../errors';
import type { MaybePromise } from '../token/hooks';
import type { Logger } from '../logger';
import { describeSendFailure, type Sender } from '../senders/sender';
import { renderTemplate } from '../senders/template';
import type { User } from '../token/user';

/** A change of a user's credentials that the owner is told about. */
export interface CredentialChange {
  /** What kind of credential. */
  kind: 'passkey' | 'linked login' | 'two-factor';
  /** Whether it was added or removed. */
  change: 'added' | 'removed';
  /** Which one, for people: a passkey's label, a linked login's provider. */
  detail?: string | undefined;
}

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
  template?: string;
}

const DEFAULT_TEMPLATE =
  'Hello {{.Name}}, on your account {{.What}}. If it was you, there is nothing to do. ' +
  'If it was not, someone has your session: reset your password, which signs out everywhere and removes what they added.\n';

/** Sends credential-change notices in the background; a failing sender is logged, never answered. */
export class CredentialNotices {
  private readonly template: string;

  /**
   * @param options - the sender and where the owner's address comes from; `undefined` sends nothing.
   * @param logger - where failures go (never the address or the text).
   * @param recorded - told of every change (the security event), mail or not.
   */
  constructor(
    private readonly options: CredentialNoticeOptions | undefined,
    private readonly logger: Logger,
    private readonly recorded: (user: User, change: CredentialChange) => void = () => undefined,
  ) {
    if (options !== undefined && typeof options.sender?.send !== 'function') throw configError('credentialNotices.sender must have send(address, text)');
    this.template = options?.template ?? DEFAULT_TEMPLATE;
  }

  /** Tells the owner of `user` about `change`, without waiting. */
  notify(user: User, change: CredentialChange): void {
    this.recorded(user, change);
    const options = this.options;
    if (options === undefined) return;
    void (async () => {
      const address = options.addressOf ? await options.addressOf(user) : user.email;
      if (!address) return;
      const name = change.kind === 'two-factor' ? 'two-factor authentication' : `a ${change.kind}`;
      const verb = change.kind !== 'two-factor' ? change.change : change.change === 'added' ? 'turned on' : 'turned off';
      const what = `${name}${change.detail ? ` (${change.detail})` : ''} was ${verb}`;
      await options.sender.send(address, renderTemplate(this.template, { Name: user.name || user.id, What: what }, options.sender.contentType === 'text/html'));
    })().catch((err: unknown) => this.logger.logf('[WARN] a credential-change notice to user %s was not sent: %s', user.id, describeSendFailure(err)));
  }
}
