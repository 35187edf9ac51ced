import request from 'supertest';
import jwt from 'jsonwebtoken';
import { senderFunc } from '../../src';
import { SECRET, login, makeApp } from '../support/auth-app';
import { activeUser, makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

const noStore = (res: request.Response): void => expect(res.headers['cache-control']).toBe('no-store');

describe('Cache-Control: no-store on every answer with a token or user data (item 9)', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  it('auth routes: logins, /user, /status, logout, verify confirmation, and a refresh behind m.auth', async () => {
    let mailed = '';
    const { app } = makeApp({}, (a) =>
      a.addVerifyProvider(
        'email',
        '{{.Token}}',
        senderFunc((_to, text) => void (mailed = text)),
      ),
    );
    noStore(await request(app).post('/auth/local/login').send({ user: 'ns', passwd: 'pw' }).expect(200));
    noStore(await request(app).get('/auth/local/login?user=ns&passwd=pw').expect(200));
    const { cookie, xsrf, jwt: token } = await login(app, 'ns');
    noStore(await request(app).get('/auth/user').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200));
    noStore(await request(app).get('/auth/status').set('Cookie', cookie).expect(200));
    noStore(await request(app).get('/auth/logout').expect(200));
    noStore(await request(app).get('/auth/email/login?user=ns&address=ns@example.com').expect(200));
    noStore(await request(app).get(`/auth/email/login?token=${mailed}`).expect(200));
    const claims = jwt.decode(token) as Record<string, unknown>;
    const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 5 }, SECRET, { algorithm: 'HS256' });
    noStore(await request(app).get('/private').set('Cookie', `JWT=${expired}`).set('X-XSRF-TOKEN', xsrf).expect(200));
  });

  it('account routes: tokens and profiles', async () => {
    const { app } = makeAccountApp(peer);
    const { id, token } = await activeUser(app, peer, 'nostore@example.com');
    noStore(await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'nostore@example.com', password: 'correct horse' }).expect(200));
    noStore(await request(app).get(`/account/profile/${id}/info`).set('Authorization', `Bearer ${token}`).expect(200));
    noStore(await request(app).put(`/account/profile/${id}/info`).set('Authorization', `Bearer ${token}`).send({ FirstName: 'N' }).expect(200));
  });
});
