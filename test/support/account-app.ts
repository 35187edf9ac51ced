import express, { type Express } from 'express';
import request from 'supertest';
import { createAccountRouter, EmailSender, type AccountRouter, type AccountRouterOptions } from '../../src';
import type { SmtpPeer } from './smtp-peer';
import { accounts, type AccountsPlugin } from '../../src/accounts';

/** An app with the account router at /account, sending mail to the SMTP peer. */
export function makeAccountApp(peer: SmtpPeer, options: Partial<AccountRouterOptions> = {}): { app: Express; accounts: AccountRouter } {
  const accounts = createAccountRouter({
    store: 'memory://',
    sender: new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'accounts@app.example', subject: 'Activate', timeout: 5000 }),
    baseUrl: 'http://127.0.0.1:8080/account',
    bcryptRounds: 4,
    ...options,
  });
  const app = express();
  app.use('/account', accounts);
  return { app, accounts };
}

/** Signs up, reads the activation link from the mail, activates; returns id and a token. */
export async function activeUser(app: Express, peer: SmtpPeer, email: string, pwd = 'correct horse'): Promise<{ id: string; token: string; link: URL }> {
  const since = peer.mails.length;
  await request(app).post('/account/signup').send({ Email: email, Pwd: pwd, PwdRepeat: pwd }).expect(202);
  const mail = await mailTo(peer, email, since);
  const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mail.body)?.[1] ?? '');
  await request(app)
    .get(link.pathname + link.search)
    .expect(200);
  const res = await request(app).post('/account/tokens').send({ grant_type: 'password', email, password: pwd }).expect(200);
  return { id: res.body.User.Id as string, token: res.body.AccessToken as string, link };
}

/** The first mail since `since` addressed to `email` (its canonical form), waiting for it; other mails (late ones of earlier tests) are skipped. */
export async function mailTo(peer: SmtpPeer, email: string, since: number): Promise<SmtpPeer['mails'][number]> {
  const to = email.trim().normalize('NFC').toLowerCase();
  for (let i = since; ; i++) {
    const mail = await peer.nextMail(i);
    if (mail.to.includes(to)) return mail;
  }
}

/** The header that carries an access token, for `.set(...bearer(token))`. */
export const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];

/** The account service as a plugin, mailing through the SMTP peer (bcrypt cost 4: tests, not users). */
export function accountsOn(peer: SmtpPeer): AccountsPlugin {
  return accounts({
    store: 'memory://',
    sender: new EmailSender({ host: '127.0.0.1', port: peer.port, from: 'accounts@app.example', timeout: 5000 }),
    baseUrl: 'http://127.0.0.1:8080/account',
    bcryptRounds: 4,
  });
}
