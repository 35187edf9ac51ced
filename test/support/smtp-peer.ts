import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/** A mail the SMTP peer received. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** The decoded body (base64 or quoted-printable parts undone). */
  body: string;
  headers: Record<string, string>;
}

/** A running smtp-server on 127.0.0.1. */
export interface SmtpPeer {
  port: number;
  mails: ReceivedMail[];
  /** Resolves with the next mail (or one already received after `since`). */
  nextMail(since?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** Options of the peer. */
export interface SmtpPeerOptions {
  /** Require AUTH with this user and password. */
  auth?: { user: string; pass: string };
  /** Offer STARTTLS with the self-signed test certificate. */
  startTLS?: boolean;
}

function decodeBody(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(split + 4);
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (encoding === 'base64') body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    body = Buffer.from(
      body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body };
}

/** Starts smtp-server on 127.0.0.1:0. */
export async function startSmtpPeer(options: SmtpPeerOptions = {}): Promise<SmtpPeer> {
  const mails: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const fixtures = join(__dirname, 'fixtures');
  const server = new SMTPServer({
    secure: false,
    disabledCommands: [...(options.auth ? [] : ['AUTH']), ...(options.startTLS ? [] : ['STARTTLS'])],
    allowInsecureAuth: true,
    authOptional: !options.auth,
    key: options.startTLS ? readFileSync(join(fixtures, 'smtp-test-key.pem')) : undefined,
    cert: options.startTLS ? readFileSync(join(fixtures, 'smtp-test-cert.pem')) : undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const { headers, body } = decodeBody(raw);
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          body,
          headers,
        });
        waiters.splice(0).forEach((w) => w());
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    nextMail(since = mails.length) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no mail arrived')), 10_000);
        const check = (): void => {
          const mail = mails[since];
          if (mail) {
            clearTimeout(timer);
            resolve(mail);
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
