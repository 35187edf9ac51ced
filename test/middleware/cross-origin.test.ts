import express from 'express';
import request from 'supertest';
import { createAccountRouter, senderFunc } from '../../src';
import { makeApp } from '../support/auth-app';

const login = { user: 'a', passwd: 'pw' };

describe('cross-origin protection', () => {
  it('refuses cross-site state-changing requests to the auth routes and lets same-site, API and GET requests through', async () => {
    const { app } = makeApp({ trustedOrigins: ['https://partner.example'] });
    const post = () => request(app).post('/auth/local/login').send(login);
    expect((await post().set('Sec-Fetch-Site', 'cross-site').set('Origin', 'https://evil.example').expect(403)).body).toEqual({ error: 'cross-site request refused', code: 'cross_site' });
    await post().set('Origin', 'https://evil.example').expect(403);
    await post().set('Origin', 'null').expect(403);
    await post().set('Sec-Fetch-Site', 'same-origin').set('Origin', 'http://127.0.0.1:8080').expect(200);
    await post().set('Origin', 'http://127.0.0.1:8080').expect(200);
    await post().expect(200);
    await post().set('Sec-Fetch-Site', 'cross-site').set('Origin', 'https://partner.example').expect(200);
    await request(app).get('/auth/local/login?user=a&passwd=pw').set('Sec-Fetch-Site', 'same-origin').expect(200);
  });

  it('can be turned off', async () => {
    const { app } = makeApp({ crossOriginProtection: false });
    await request(app).post('/auth/local/login').set('Sec-Fetch-Site', 'cross-site').send(login).expect(200);
  });

  it('lets a provider that declares a cross-site callback (Apple form_post) through, and only its callback', async () => {
    const { app } = makeApp({}, (auth) =>
      auth.addCustomHandler({
        name: 'xsite',
        crossSiteCallback: true,
        async login(_req, res) {
          res.end('login');
        },
        async callback(_req, res) {
          res.end('callback reached');
        },
      }),
    );
    const cb = await request(app).post('/auth/xsite/callback').set('Sec-Fetch-Site', 'cross-site').type('form').send({ code: 'c' }).expect(200);
    expect(cb.text).toBe('callback reached');
    await request(app).post('/auth/xsite/login').set('Sec-Fetch-Site', 'cross-site').expect(403);
  });

  it('m.crossOrigin guards the app own routes', async () => {
    const { app, auth } = makeApp();
    app.post('/transfer', auth.middleware().crossOrigin, (_req, res) => {
      res.json({ ok: true });
    });
    await request(app).post('/transfer').set('Sec-Fetch-Site', 'cross-site').expect(403);
    await request(app).post('/transfer').set('Sec-Fetch-Site', 'same-origin').expect(200);
  });

  it('guards the account router too, and refuses bad trusted origins at start-up', async () => {
    const accounts = createAccountRouter({ store: 'memory://', sender: senderFunc(() => undefined), baseUrl: 'http://127.0.0.1:8080/account', bcryptRounds: 4 });
    const app = express();
    app.use('/account', accounts);
    const res = await request(app).post('/account/signup').set('Sec-Fetch-Site', 'cross-site').send({ Email: 'x@example.com', Pwd: 'password-1', PwdRepeat: 'password-1' }).expect(403);
    expect(res.body).toMatchObject({ Code: 1.0, Description: 'cross-site request refused' });
    expect((await accounts.store.list(0, 1)).total).toBe(0);
    expect(() => makeApp({ trustedOrigins: ['not an origin'] })).toThrow(/trustedOrigins/);
  });
});
