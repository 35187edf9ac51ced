import type { Express } from 'express';
import request from 'supertest';
import { mailTo } from '../support/account-app';
import type { SmtpPeer } from '../support/smtp-peer';

/** Signs up on the app's `/account`, activates from the mail, logs in once through `/auth/accounts/login` (so the directory knows the user); its token and user id. */
export async function activeUserOn(app: Express, peer: SmtpPeer, email: string, pwd = 'correct horse'): Promise<{ token: string; userId: string }> {
  const since = peer.mails.length;
  await request(app).post('/account/signup').send({ Email: email, Pwd: pwd, PwdRepeat: pwd }).expect(202);
  const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec((await mailTo(peer, email, since)).body)?.[1] ?? '');
  await request(app)
    .get(link.pathname + link.search)
    .expect(200);
  const login = await request(app).post('/auth/accounts/login').send({ user: email, passwd: pwd }).expect(200);
  const res = await request(app).post('/account/tokens').send({ grant_type: 'password', email, password: pwd }).expect(200);
  return { token: res.body.AccessToken as string, userId: login.body.id as string };
}
