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
    expect(res.body).toEqual({ error: 'cross-site login refused: start the login on this site', code: 'cross_site' });
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
      expect(res.body).toEqual({ error: 'cross-site request refused', code: 'cross_site' });
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

  it('another site cannot make a visitor’s browser mail sign-in links (an <img> of the link request): 403 cross_site, nothing mailed', async () => {
    const before = mailed;
    const refused = await request(made.app)
      .get('/auth/email/login?user=ACCOUNT%20SUSPENDED%20call%20now&address=stranger@example.com')
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Sec-Fetch-Dest', 'image')
      .expect(403);
    expect(refused.body.code).toBe('cross_site');
    expect(mailed).toBe(before);
    // Without Fetch Metadata, a Referer of another site says the same.
    await request(made.app).get('/auth/email/login?user=s&address=stranger@example.com').set('Referer', 'https://evil.example/page').expect(403);
    expect(mailed).toBe(before);
    // This site's own page, and a client without a browser (no such headers), still ask for links.
    await request(made.app).get('/auth/email/login?user=s&address=s@example.com').set('Sec-Fetch-Site', 'same-origin').expect(200);
    await request(made.app).get('/auth/email/login?user=t&address=t@example.com').expect(200);
  });

  it('an e-mail link opened from another site asks first: only the POST of its page, from this site, logs in', async () => {
    await request(made.app).get('/auth/email/login?user=v&address=v@example.com').set('Sec-Fetch-Site', 'same-origin').expect(200);
    const token = mailed;
    const page = await request(made.app).get(`/auth/email/login?token=${token}`).set('Sec-Fetch-Site', 'cross-site').set('Referer', 'https://webmail.example/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain('Sign in as v (v@example.com)?');
    expect(page.text).toContain('<form method="post" action="/auth/email/login">');
    expect(page.text).toContain(`name="token" value="${token}"`);
    expect(setCookies(page).JWT).toBeUndefined();
    // Another site cannot press the button for the victim (its POST is cross-site)...
    await request(made.app).post('/auth/email/login').type('form').send({ token }).set('Sec-Fetch-Site', 'cross-site').set('Origin', 'https://evil.example').expect(403);
    // ...the page's own POST logs in, once.
    const res = await request(made.app).post('/auth/email/login').type('form').send({ token }).set('Sec-Fetch-Site', 'same-origin').set('Origin', 'http://127.0.0.1:8080').expect(200);
    expect(res.body.name).toBe('v');
    expect(setCookies(res).JWT?.value).toBeTruthy();
    await request(made.app).post('/auth/email/login').type('form').send({ token }).set('Sec-Fetch-Site', 'same-origin').expect(403);
    // A link opened in the browser directly (or from this site) logs in as before.
    await request(made.app).get('/auth/email/login?user=w&address=w@example.com').set('Sec-Fetch-Site', 'same-origin').expect(200);
    const direct = await request(made.app).get(`/auth/email/login?token=${mailed}`).set('Sec-Fetch-Site', 'none').expect(200);
    expect(direct.body.name).toBe('w');
    // A user's name or address cannot write into the page.
    await request(made.app)
      .get(`/auth/email/login?user=${encodeURIComponent('<b>x</b>')}&address=x@example.com`)
      .set('Sec-Fetch-Site', 'same-origin')
      .expect(200);
    const escaped = await request(made.app).get(`/auth/email/login?token=${mailed}`).set('Sec-Fetch-Site', 'cross-site').expect(200);
    expect(escaped.text).toContain('&#60;b&#62;x&#60;/b&#62;');
    expect(escaped.text).not.toContain('<b>x</b>');
  });

  it('a link from another site to a login start does not end the session this browser holds; without one it starts the login', async () => {
    const signedIn = await request(made.app).get('/auth/local/login?user=ann&passwd=pw').expect(200);
    const jwt = setCookies(signedIn).JWT!.value;
    const linked = await request(made.app).get('/auth/dev/login?from=/').set('Cookie', `JWT=${jwt}`).set('Sec-Fetch-Site', 'cross-site').expect(403);
    expect([linked.body.code, setCookies(linked).JWT]).toEqual(['cross_site', undefined]);
    await request(made.app).get('/auth/user').set('Cookie', `JWT=${jwt}`).set('X-XSRF-TOKEN', setCookies(signedIn)['XSRF-TOKEN']!.value).expect(200);
    // The same link without a session, or from this site with one, starts the login.
    await request(made.app).get('/auth/dev/login?from=/').set('Sec-Fetch-Site', 'cross-site').expect(302);
    await request(made.app).get('/auth/dev/login?from=/').set('Cookie', `JWT=${jwt}`).set('Sec-Fetch-Site', 'same-origin').expect(302);
  });

  it('can be turned off with crossOriginProtection: false', async () => {
    const { app } = makeApp({ crossOriginProtection: false });
    await request(app).get(GET_LOGIN).set('Sec-Fetch-Site', 'cross-site').expect(303);
  });
});
