import request from 'supertest';
import { senderFunc, type DevServer } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';

const GET_LOGIN = '/auth/local/login?user=attacker&passwd=pw&from=/private';

describe('login CSRF: a cross-site request must not log a browser in (item 2)', () => {
  let made: TestApp;
  let dev: DevServer;
  let mailed = '';
  beforeAll(async () => {
    made = makeApp({ trustedOrigins: ['https://partner.example'], rateLimits: false }, (auth) => {
      dev = auth.addDevProvider({ port: 0 });
      auth.addVerifyProvider(
        'email',
        '{{.Token}}',
        senderFunc((_to, text) => void (mailed = text)),
      );
      auth.addCustomHandler({
        name: 'custom',
        // A provider written by an app: it completes a login from a GET, and gets the same check.
        async login(req, res, kit) {
          await kit.completeLogin(req, res, { provider: 'custom', user: { name: 'c', id: 'custom_1', picture: '' } });
        },
      });
    });
    await dev.start();
  });
  afterAll(() => dev.stop());

  const refused = async (req: request.Test): Promise<void> => {
    const res = await req.expect(403);
    expect(res.body).toEqual({ error: 'cross-site login refused: start the login on this site' });
    expect(setCookies(res).JWT).toBeUndefined();
    expect(res.headers.location).toBeUndefined();
  };

  it('refuses GET direct login sent from another site: Sec-Fetch-Site, else a foreign Origin, else a foreign Referer', async () => {
    await refused(request(made.app).get(GET_LOGIN).set('Sec-Fetch-Site', 'cross-site'));
    await refused(request(made.app).get(GET_LOGIN).set('Sec-Fetch-Site', 'cross-site').set('Referer', 'http://127.0.0.1:8080/'));
    await refused(request(made.app).get(GET_LOGIN).set('Origin', 'https://evil.example'));
    await refused(request(made.app).get(GET_LOGIN).set('Referer', 'https://evil.example/page'));
    await refused(request(made.app).get(GET_LOGIN).set('Referer', 'not a url'));
  });

  it('lets same-origin, same-site, typed (none), trusted and non-browser GET logins through', async () => {
    for (const site of ['same-origin', 'same-site', 'none']) {
      const res = await request(made.app).get(GET_LOGIN).set('Sec-Fetch-Site', site).expect(303);
      expect(res.headers.location).toBe('/private');
    }
    await request(made.app).get(GET_LOGIN).set('Referer', 'http://127.0.0.1:8080/login-page').expect(303);
    await request(made.app).get(GET_LOGIN).set('Origin', 'http://127.0.0.1:8080').expect(303);
    await request(made.app).get(GET_LOGIN).set('Sec-Fetch-Site', 'cross-site').set('Origin', 'https://partner.example').expect(303);
    await request(made.app).get(GET_LOGIN).set('Referer', 'https://partner.example/x').expect(303);
    await request(made.app).get(GET_LOGIN).expect(303);
  });

  it('applies to any provider that completes a login, including one written by the app', async () => {
    await refused(request(made.app).get('/auth/custom/login').set('Sec-Fetch-Site', 'cross-site'));
    await request(made.app).get('/auth/custom/login').set('Sec-Fetch-Site', 'same-origin').expect(200);
  });

  it('refuses a cross-site logout; a same-site one clears the cookies', async () => {
    for (const path of ['/auth/logout', '/auth/local/logout']) {
      const res = await request(made.app).get(path).set('Sec-Fetch-Site', 'cross-site').expect(403);
      expect(res.body).toEqual({ error: 'cross-site request refused' });
      expect(setCookies(res).JWT).toBeUndefined();
      expect(setCookies(await request(made.app).get(path).set('Sec-Fetch-Site', 'same-origin').expect(200)).JWT?.value).toBe('');
    }
  });

  it('keeps the OAuth2 callback working when the provider sends the browser back cross-site (state is the proof)', async () => {
    const { location, handshake } = await startLogin(made.app, 'dev');
    const cb = await devAuthorize(location, 'xsite');
    const res = await callback(made.app, cb, handshake).set('Sec-Fetch-Site', 'cross-site').expect(200);
    expect(res.body.name).toBe('xsite');
  });

  it('keeps the e-mail verify link working from a webmail page (the one-shot token is the proof)', async () => {
    await request(made.app).get('/auth/email/login?user=v&address=v@example.com').set('Sec-Fetch-Site', 'same-origin').expect(200);
    const res = await request(made.app).get(`/auth/email/login?token=${mailed}`).set('Sec-Fetch-Site', 'cross-site').set('Referer', 'https://webmail.example/').expect(200);
    expect(res.body.name).toBe('v');
  });

  it('can be turned off with crossOriginProtection: false', async () => {
    const { app } = makeApp({ crossOriginProtection: false });
    await request(app).get(GET_LOGIN).set('Sec-Fetch-Site', 'cross-site').expect(303);
  });
});
