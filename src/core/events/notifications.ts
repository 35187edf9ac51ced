import { createHash } from 'node:crypto';
import { configError } from '../../base/errors';
import { type Logger, logTo } from '../../base/logger';
import { describeSendFailure, type Sender } from '../senders/sender';
import { renderTemplate } from '../senders/template';
import type { StateStore } from '../state/state-store';
import type { MaybePromise } from '../token/hooks';
import type { User } from '../token/user';
import type { UserDirectory } from '../users/user-directory';
import type { AuthEvent } from '../audit/auth-event';
import { CREDENTIAL_KIND_CODES, type CredentialNoticeOptions } from '../credentials/credential-notices';
import type { EventBus } from './event-bus';
import type { Translations } from '../i18n/translations';

/** The notices a user may get: each can be turned off. */
export const NOTICE_KINDS = ['new-device', 'password', 'email', 'credentials', 'banned'] as const;

/** One of {@link NOTICE_KINDS}. */
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** Mails to the owner of an account when something happens to it (`createAuth({ notifications })`). */
export interface NotificationOptions {
  /** Delivers the mails (e.g. an `EmailSender`). */
  sender: Sender;
  /** The address of a user's owner; `undefined` sends nothing. @default the e-mail the user directory knows */
  addressOf?: (user: User) => MaybePromise<string | undefined>;
  /**
   * The texts, by kind, with `{{.Name}}` (the user's name), `{{.What}}` (what happened, e.g. "a
   * passkey (laptop) was added"), `{{.Device}}` (the browser) and `{{.When}}`. They never carry a
   * code or a link that logs in. @default short texts that say what happened and what to do if it was not the owner
   */
  templates?: Partial<Record<NoticeKind, string>> | undefined;
  /** Kinds not to send. @default [] (all are sent) */
  off?: readonly NoticeKind[] | undefined;
}

/** The browsers a user signed in with, remembered this long. */
const KNOWN_DEVICE_MS = 365 * 86_400_000;

/** What a credential change event says, in words of `locale` ("a passkey (laptop) was added"). */
function credentialWhat(event: AuthEvent, text: (key: string, values?: Record<string, string>) => string): string {
  const code = String(event.data.kind ?? 'credential');
  const detail = typeof event.data.detail === 'string' && event.data.detail !== '' ? ` (${event.data.detail})` : '';
  const added = event.type === 'credential.added';
  if (code === CREDENTIAL_KIND_CODES['two-factor']) return text(added ? 'mail.notice.what.twoFactorOn' : 'mail.notice.what.twoFactorOff', { Kind: text('mail.notice.kind.totp') + detail });
  const kind = (Object.values(CREDENTIAL_KIND_CODES) as string[]).includes(code) ? text(`mail.notice.kind.${code}`) : text('mail.notice.kind.other');
  return text(added ? 'mail.notice.what.added' : 'mail.notice.what.removed', { Kind: kind + detail });
}

/** The older `credentialNotices` option as notifications: credential changes only, its template kept. */
export function fromCredentialNotices(options: CredentialNoticeOptions | undefined): NotificationOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options?.sender?.send !== 'function') throw configError('credentialNotices.sender must have send(address, text)');
  return {
    sender: options.sender,
    ...(options.addressOf ? { addressOf: options.addressOf } : {}),
    ...(options.template ? { templates: { credentials: options.template } } : {}),
    off: NOTICE_KINDS.filter((k) => k !== 'credentials'),
  };
}

/** Checks {@link NotificationOptions} at once. */
export function checkNotifications(options: NotificationOptions | undefined): NotificationOptions | undefined {
  if (options === undefined) return undefined;
  if (typeof options?.sender?.send !== 'function') throw configError('notifications.sender must have send(address, text)');
  const unknown = [...Object.keys(options.templates ?? {}), ...(options.off ?? [])].find((k) => !(NOTICE_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw configError(`notifications: no notice kind ${JSON.stringify(unknown)}; kinds are ${NOTICE_KINDS.join(', ')}`);
  return options;
}

/**
 * Sends the owner a mail for the events that matter to them: a sign-in from a browser the
 * account had not used, a password or e-mail change, a passkey, linked login or second factor
 * added or removed, a ban. Driven by the events, in the background: a failing sender is logged
 * (never the address or the text), never answered.
 */
export class Notifications {
  /**
   * @param options - checked options.
   * @param deps - the events to follow, the user directory (names, addresses), the state store (known browsers), the logger.
   */
  constructor(
    private readonly options: NotificationOptions,
    private readonly deps: { events: EventBus; users: UserDirectory; state: StateStore; logger: Logger; translations: Translations },
  ) {
    // A notice speaks the language of the request its owner made; a ban (an admin's request) the default one.
    type Text = (key: string, values?: Record<string, string>) => string;
    const on = (kind: NoticeKind, types: AuthEvent['type'][], what: (e: AuthEvent, text: Text) => Promise<string | undefined> | string | undefined): void => {
      if (options.off?.includes(kind)) return;
      for (const type of types)
        deps.events.on(type, async (e, origin) => {
          const locale = deps.translations.localeFor(kind === 'banned' ? undefined : origin.acceptLanguage);
          const text: Text = (key, values = {}) => renderTemplate(deps.translations.text(key, locale) ?? key, values, false);
          await this.send(kind, e, await what(e, text), locale, text);
        });
    };
    on('new-device', ['login.succeeded'], (e) => this.newDevice(e));
    on('password', ['password.changed', 'password.reset'], (e, text) => text(e.type === 'password.reset' ? 'mail.notice.what.passwordReset' : 'mail.notice.what.passwordChanged'));
    on('email', ['email.changed'], (_e, text) => text('mail.notice.what.emailChanged'));
    on('credentials', ['credential.added', 'credential.removed'], credentialWhat);
    on('banned', ['user.banned'], () => 'suspended');
  }

  /** `'known'` unless the event's browser is new for a user who signed in before (the first browser is not news). */
  private async newDevice(event: AuthEvent): Promise<string | undefined> {
    if (event.userId === undefined || event.userAgent === undefined) return undefined;
    const group = `known-devices:${event.userId}`;
    const device = createHash('sha256').update(event.userAgent).digest('base64url').slice(0, 16);
    const known = await this.deps.state.members(group);
    await this.deps.state.setMember(group, device, 1, KNOWN_DEVICE_MS);
    return known.length > 0 && !known.some((m) => m.member === device) ? 'new device' : undefined;
  }

  private async send(kind: NoticeKind, event: AuthEvent, what: string | undefined, locale: string, text: (key: string) => string): Promise<void> {
    if (what === undefined || event.userId === undefined) return;
    try {
      const record = await this.deps.users.get(event.userId);
      const user: User = { id: event.userId, name: record?.name ?? event.userId, picture: '', ...(record?.email ? { email: record.email } : {}) };
      const address = this.options.addressOf ? await this.options.addressOf(user) : user.email;
      if (!address) return;
      const mail = renderTemplate(
        this.options.templates?.[kind] ?? text(`mail.notice.${kind}`),
        { Name: user.name || user.id, What: what, Device: event.userAgent ?? text('mail.notice.unknownBrowser'), When: this.deps.translations.dateTime(event.time, locale) },
        this.options.sender.contentType === 'text/html',
      );
      await this.options.sender.send(address, mail);
    } catch (err) {
      logTo(this.deps.logger).warn('a {notice} notice to user {user} was not sent: {error}', { notice: kind, user: event.userId, error: describeSendFailure(err) });
    }
  }
}
