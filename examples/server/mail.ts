import { EmailSender, logTo, senderFunc, type Logger, type Sender } from '../../src';

/**
 * The example's sender: SMTP from `SMTP_URL` (`smtp://user:pass@host:25`, `smtp://host:587?starttls=1`,
 * `smtps://host:465`, `&insecure=1` for self-signed test servers), else one that writes the
 * message to the log, so logins work with nothing installed.
 */
export function exampleSender(smtpUrl: string | undefined, logger: Logger): Sender {
  // The mail on one log line, its line breaks as spaces: a log line holds none (the logger escapes them).
  if (!smtpUrl) return senderFunc((address, text) => logTo(logger).info('mail to {to}: {text}', { to: address, text: text.replace(/\s*\r?\n\s*/g, ' ').trim() }));
  const url = new URL(smtpUrl);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error('SMTP_URL must start with smtp:// or smtps://');
  return new EmailSender({
    host: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    tls: url.protocol === 'smtps:',
    startTLS: url.searchParams.get('starttls') === '1',
    insecureSkipVerify: url.searchParams.get('insecure') === '1',
    smtpUserName: url.username ? decodeURIComponent(url.username) : undefined,
    smtpPassword: url.password ? decodeURIComponent(url.password) : undefined,
    from: url.searchParams.get('from') ?? 'authgate-example@localhost',
    subject: 'Your authgate example login',
  });
}
