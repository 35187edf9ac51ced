import request from 'supertest';
import { describePostgres } from '../support/servers';
import { postgresBehindProxy } from '../support/tcp-proxy';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from './sso-helpers';

const peers = ssoPeers();

/**
 * Over http the login's cookie is SameSite=Lax: a browser keeps it from the IdP's cross-site POST
 * to the ACS. The answer then waits under a one-time ticket for the GET navigation that brings it.
 */
describe('SAML over http with the IdP on another site: the answer comes without the login cookie', () => {
  let t: SsoApp;
  beforeEach(async () => {
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] });
    await samlConnection(t, peers.idp);
  });
  afterEach(() => t.auth.close());

  /** The IdP's answer posted as a browser that kept the Lax cookie posts it: with no cookie at all. */
  const postWithoutCookies = (form: { action: string; SAMLResponse: string; RelayState: string }): Promise<request.Response> =>
    request(t.app).post(new URL(form.action).pathname).set('Origin', peers.idp.origin).type('form').send({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState });

  it('keeps the answer under a one-time ticket and signs the person in on the navigation that brings the cookie; the ticket works once', async () => {
    const browser = new SsoBrowser(t);
    const started = await browser.start('email=someone@customer.test');
    const form = await peers.idp.follow(started.headers.location as string);
    const parked = await postWithoutCookies(form);
    expect(parked.status).toBe(303);
    const finish = new URL(parked.headers.location as string);
    expect(finish.pathname).toMatch(/^\/auth\/sso\/finish\/[\w-]+$/);
    expect(parked.headers['set-cookie']).toBeUndefined();
    const done = await browser.get(`${finish.pathname}${finish.search}`);
    expect(done.status).toBe(200);
    expect(browser.jar.get('JWT')).toBeDefined();
    const me = await browser.get('/auth/user');
    expect([me.status, me.body.email]).toEqual([200, 'someone@customer.test']);
    const again = await browser.get(`${finish.pathname}${finish.search}`);
    expect([again.status, again.body.code]).toEqual([403, 'saml_invalid']);
    expect(again.body.error).toMatch(/used already, or came more than a minute ago/);
  });

  it('says why when the navigation does not bring the cookie either (another address, another browser), and signs nobody in', async () => {
    const starter = new SsoBrowser(t);
    const form = await peers.idp.follow((await starter.start('email=someone@customer.test')).headers.location as string);
    const parked = await postWithoutCookies(form);
    const stranger = new SsoBrowser(t);
    const refused = await stranger.get(new URL(parked.headers.location as string).pathname + new URL(parked.headers.location as string).search);
    expect([refused.status, refused.body.code]).toEqual([403, 'saml_invalid']);
    expect(refused.body.error).toMatch(
      /this browser holds no login started at 127\.0\.0\.1:8080: the login's cookie did not come back \(it was started at another address, such as localhost instead of 127\.0\.0\.1/,
    );
    expect(stranger.jar.get('JWT')).toBeUndefined();
  });

  it('parks only an answer the IdP signed that names a request: junk with a RelayState of our form is refused at once, never kept', async () => {
    const started = await new SsoBrowser(t).start('email=someone@customer.test');
    const form = await peers.idp.follow(started.headers.location as string);
    const junk = await postWithoutCookies({
      ...form,
      SAMLResponse: Buffer.from(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'x'.repeat(100_000)}</samlp:Response>`).toString('base64'),
    });
    expect([junk.status, junk.body.code]).toEqual([403, 'saml_invalid']);
    expect(junk.headers.location).toBeUndefined();
    // Shaped like an answer to a request of ours, but signed by nobody.
    const unsigned = Buffer.from(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" InResponseTo="_abc" ID="_r1" Version="2.0">${'<x/>'.repeat(2_000)}</samlp:Response>`).toString(
      'base64',
    );
    const forged = await postWithoutCookies({ ...form, SAMLResponse: unsigned });
    expect([forged.status, forged.body.code]).toEqual([403, 'saml_invalid']);
    const notBase64 = await postWithoutCookies({ ...form, SAMLResponse: 'not base64 at all!' });
    expect([notBase64.status, notBase64.body.code]).toEqual([400, 'saml_invalid']);
    // The IdP's real answer is still parked and finished as before.
    expect((await postWithoutCookies(form)).status).toBe(303);
  });

  it('refuses a made-up ticket with the same words, and an IdP-initiated answer without a login of ours at once', async () => {
    const connection = (await t.owner.get('/auth/orgs/acme/sso/connections')).body[0] as { id: string };
    const made = await new SsoBrowser(t).get(`/auth/sso/finish/${connection.id}?ticket=${'a'.repeat(40)}`);
    expect([made.status, made.body.code]).toEqual([403, 'saml_invalid']);
    const unsolicited = await postWithoutCookies(await peers.idp.unsolicited('/dashboard'));
    expect([unsolicited.status, unsolicited.body.code]).toEqual([403, 'saml_invalid']);
    expect(unsolicited.body.error).toMatch(/it began at the identity provider\), and IdP-initiated logins are off/);
  });
});

describePostgres('SAML over http: a finish answered 503 (the user store cut off) changed nothing', () => {
  const db = postgresBehindProxy();

  it('the same finish URL signs the person in once the cut ends, and only once', async () => {
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    const t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { userStore: `${db.through}?schema=sso_finish`, storeTimeout: 1000 });
    try {
      await samlConnection(t, peers.idp);
      const browser = new SsoBrowser(t);
      const form = await peers.idp.follow((await browser.start('email=someone@customer.test')).headers.location as string);
      const parked = await request(t.app).post(new URL(form.action).pathname).set('Origin', peers.idp.origin).type('form').send({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState });
      const finish = new URL(parked.headers.location as string);
      db.proxy.pause();
      const cut = await browser.get(`${finish.pathname}${finish.search}`);
      expect([cut.status, cut.body.code, cut.headers['set-cookie']]).toEqual([503, 'unavailable', undefined]);
      db.proxy.resume();
      const done = await browser.get(`${finish.pathname}${finish.search}`);
      expect(done.status).toBe(200);
      expect((await browser.get('/auth/user')).body.email).toBe('someone@customer.test');
      const again = await browser.get(`${finish.pathname}${finish.search}`);
      expect([again.status, again.body.code]).toEqual([403, 'saml_invalid']);
    } finally {
      db.proxy.resume();
      await t.auth.close();
    }
  });
});
