/** `authgate/email`: e-mail delivery through SMTP (needs the optional package nodemailer). */
export { EmailSender, SenderError, type EmailSenderOptions } from './core/senders/email-sender';
