import { AuthError, configError } from '../../base/errors';
import type { Mail } from 'nodemailer';
import { loadOptional } from '../../internal/optional';
import { isEmailAddress } from '../../internal/email-address';
import type { Sender } from './sender';

/** Options of {@link EmailSender}. */
export interface EmailSenderOptions {
  /** SMTP host. */
  host: string;
  /** SMTP port. @default 465 with `tls`, else 25 */
  port?: number | undefined;
  /** SMTP user name. @default undefined (no authentication) */
  smtpUserName?: string | undefined;
  /** SMTP password. @default undefined */
  smtpPassword?: string | undefined;
  /** Implicit TLS from the first byte (usually port 465). @default false */
  tls?: boolean | undefined;
  /** Require STARTTLS; without it (and without `tls`) the connection stays plain. @default false */
  startTLS?: boolean | undefined;
  /** Accept any server certificate (self-signed test servers only). @default false */
  insecureSkipVerify?: boolean | undefined;
  /** The sender address of the mail. */
  from: string;
  /** The subject of the mail. @default 'Confirm your login' */
  subject?: string | undefined;
  /** `text/plain` or `text/html`. @default 'text/plain' */
  contentType?: 'text/plain' | 'text/html' | undefined;
  /** Charset of the body; nodemailer always encodes UTF-8, so only `utf-8` is accepted. @default 'utf-8' */
  charset?: string | undefined;
  /** Time limit of connecting, greeting and each socket step, in ms. @default 30000 */
  timeout?: number | undefined;
}

/** Why a mail was not sent (code `bad_gateway`); the message names the kind of failure, never the server's reply. */
export class SenderError extends AuthError {
  override readonly name = 'SenderError';

  /** @param message - the kind of failure. @param options - `cause`: the transport's error, for logs. */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('bad_gateway', message, options);
  }
}

function describeFailure(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === 'EAUTH' || code === 'ENOAUTH') return 'SMTP authentication failed: check smtpUserName and smtpPassword';
  if (code === 'ETLS') return 'SMTP TLS negotiation failed';
  if (code === 'ECONNECTION' || code === 'ETIMEDOUT' || code === 'ESOCKET' || code === 'EDNS') return 'SMTP server unreachable';
  if (code === 'EENVELOPE') return 'the SMTP server refused the recipient';
  return 'SMTP send failed';
}

/** Sends verification messages by e-mail through an SMTP server (nodemailer). */
export class EmailSender implements Sender {
  /** @inheritdoc */
  readonly contentType: 'text/plain' | 'text/html';
  private readonly transport: Mail;

  /** @param options - server, credentials, TLS and the mail's from/subject. */
  constructor(private readonly options: EmailSenderOptions) {
    if (!options?.host) throw configError('EmailSender needs the SMTP host');
    if (!options.from) throw configError('EmailSender needs the from address');
    if (options.charset !== undefined && !/^utf-?8$/i.test(options.charset)) {
      throw configError('EmailSender sends UTF-8 only (nodemailer encodes every body as UTF-8)');
    }
    this.contentType = options.contentType ?? 'text/plain';
    const timeout = options.timeout ?? 30_000;
    const nodemailer = loadOptional<typeof import('nodemailer')>('nodemailer', 'EmailSender');
    this.transport = nodemailer.createTransport({
      host: options.host,
      port: options.port ?? (options.tls ? 465 : 25),
      secure: options.tls ?? false,
      requireTLS: options.startTLS ?? false,
      ignoreTLS: !options.startTLS && !options.tls,
      auth: options.smtpUserName ? { user: options.smtpUserName, pass: options.smtpPassword ?? '' } : undefined,
      tls: { rejectUnauthorized: !options.insecureSkipVerify },
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
  }

  /** An e-mail address of sane shape, without control characters (no header injection). */
  validateAddress(address: string): boolean {
    return isEmailAddress(address);
  }

  /** @inheritdoc */
  async send(address: string, text: string): Promise<void> {
    if (!this.validateAddress(address)) throw new SenderError('not an e-mail address');
    const body = this.contentType === 'text/html' ? { html: text } : { text };
    try {
      await this.transport.sendMail({
        from: this.options.from,
        to: address,
        subject: this.options.subject ?? 'Confirm your login',
        encoding: 'base64',
        textEncoding: 'base64',
        ...body,
      });
    } catch (err) {
      throw new SenderError(describeFailure(err), { cause: err });
    }
  }

  /** Closes pooled connections. */
  close(): void {
    this.transport.close();
  }
}
