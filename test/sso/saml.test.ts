import { deflateRawSync } from 'node:zlib';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { sso } from '../../src/plugins/sso';
import { admin } from '../../src/admin';
import { rootIsAdmin } from '../admin/admin-helpers';
import { testKeys } from '../support/saml-idp';
import { Browser, orgApp } from '../organizations/org-helpers';
import { enableTwoFactor, samlConnection, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from './sso-helpers';

const peers = ssoPeers();

describe('SAML logins and two-factor', () => {
  let t: SsoApp;
  beforeEach(async () => {
    peers.idp.encrypt = false;
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { twoFactor: { key: 'test-two-factor-key-0123456789abcdef' } });
  });
  afterEach(() => t.auth.close());

  it("waits for the app's second factor unless the IdP's authentication context is one the connection counts as two", async () => {
    const { id } = await samlConnection(t, peers.idp);
    const person = new SsoBrowser(t);
    expect((await person.login(peers.idp)).status).toBe(200);
    await enableTwoFactor(person);
    peers.idp.user.authnContext = 'urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract';
    const held = await new SsoBrowser(t).login(peers.idp);
    expect([held.status, held.body.status]).toEqual([202, 'second factor required']);
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${id}`, { mfaContexts: ['urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract'] })).status).toBe(200);
    expect((await new SsoBrowser(t).login(peers.idp)).status).toBe(200);
    // Another context (a password alone) still waits.
    peers.idp.user.authnContext = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
    expect((await new SsoBrowser(t).login(peers.idp)).status).toBe(202);
  });
});

describe('SAML single logout', () => {
  let t: SsoApp;
  beforeEach(async () => {
    peers.idp.encrypt = false;
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] });
  });
  afterEach(() => t.auth.close());

  it("the IdP's signed logout request ends every session of the user and is answered; an unsigned or foreign one ends nothing", async () => {
    const { id } = await samlConnection(t, peers.idp);
    const first = new SsoBrowser(t);
    const second = new SsoBrowser(t);
    expect((await first.login(peers.idp)).status).toBe(200);
    expect((await second.login(peers.idp)).status).toBe(200);
    const path = (url: string): string => `${new URL(url).pathname}${new URL(url).search}`;

    const unsigned = await new SsoBrowser(t).get(path(peers.idp.logoutRequest('someone@customer.test', { unsigned: true })));
    expect([unsigned.status, unsigned.body.code]).toEqual([403, 'saml_invalid']);
    const tampered = peers.idp.logoutRequest('someone@customer.test').replace(/Signature=[^&]+/, `Signature=${encodeURIComponent(Buffer.alloc(256, 1).toString('base64'))}`);
    expect((await new SsoBrowser(t).get(path(tampered))).status).toBe(403);
    // A few kilobytes of URL that inflate to megabytes of nesting: refused before node-saml inflates it.
    const bomb = deflateRawSync(`<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}</samlp:LogoutRequest>`, { level: 9 });
    const bombed = tampered.replace(/SAMLRequest=[^&]+/, `SAMLRequest=${encodeURIComponent(bomb.toString('base64'))}`);
    expect(bombed.length).toBeLessThan(16_000);
    const inflated = await new SsoBrowser(t).get(path(bombed));
    expect([inflated.status, inflated.body.code, inflated.body.error]).toEqual([403, 'saml_invalid', expect.stringMatching(/deflated base64 of at most/)]);

    const userId = ((await first.get('/auth/user')).body as { id: string }).id;
    expect(await t.auth.sessions.list(userId)).toHaveLength(2);
    const answered = await new SsoBrowser(t).get(path(peers.idp.logoutRequest('someone@customer.test')));
    expect(answered.status).toBe(302);
    expect(answered.headers.location).toMatch(new RegExp(`^${peers.idp.origin}/slo\\?SAMLResponse=`));
    // Revoked: gone from the list at once, and refused at the token's next refresh (or at once in 'every-request' mode).
    expect(await t.auth.sessions.list(userId)).toEqual([]);
    await t.auth.events.flush();
    const { events } = await t.auth.events.list({ types: ['logout'], userId });
    expect(events[0]?.data).toMatchObject({ provider: 'sso', connection: id, sessions: 2, by: 'idp' });
  });

  it("the IdP's logout request by the HTTP-POST binding (signed inside the XML) ends the sessions too; a tampered one ends nothing", async () => {
    await samlConnection(t, peers.idp);
    const person = new SsoBrowser(t);
    const userId = ((await person.login(peers.idp)).body as { id: string }).id;
    const posted = peers.idp.logoutPost('someone@customer.test');
    const slo = `/auth/sso/slo/${((await t.owner.get('/auth/orgs/acme/sso/connections')).body as Array<{ id: string }>)[0]!.id}`;
    const tampered = Buffer.from(Buffer.from(posted, 'base64').toString('utf8').replace('someone@customer.test', 'other@customer.test')).toString('base64');
    const refused = await request(t.app).post(slo).set('Origin', peers.idp.origin).type('form').send({ SAMLRequest: tampered });
    expect([refused.status, refused.body.code]).toEqual([403, 'saml_invalid']);
    expect(await t.auth.sessions.list(userId)).toHaveLength(1);
    const done = await request(t.app).post(slo).set('Origin', peers.idp.origin).type('form').send({ SAMLRequest: posted });
    expect(done.status).toBe(302);
    expect(done.headers.location).toMatch(new RegExp(`^${peers.idp.origin}/slo\\?SAMLResponse=`));
    expect(await t.auth.sessions.list(userId)).toEqual([]);
  });

  it('logging out of an SSO session ends it here and sends the browser to the IdP with a signed request, whose answer lands on the app', async () => {
    await samlConnection(t, peers.idp);
    const person = new SsoBrowser(t);
    expect((await person.login(peers.idp)).status).toBe(200);
    const out = await person.get('/auth/sso/logout');
    expect(out.status).toBe(302);
    expect(out.headers.location).toMatch(new RegExp(`^${peers.idp.origin}/slo\\?SAMLRequest=.*&Signature=`));
    expect((await person.get('/auth/user')).status).toBe(401);
    const answer = new URL(await peers.idp.followLogout(out.headers.location as string));
    const landed = await person.get(`${answer.pathname}${answer.search}`);
    expect([landed.status, landed.headers.location]).toEqual([302, 'http://127.0.0.1:8080/']);
  });

  it('a browser that follows a link to /sso/logout (no XSRF header) is signed out here and gets a page whose button signs it out at the IdP, once', async () => {
    await samlConnection(t, peers.idp);
    const person = new SsoBrowser(t);
    expect((await person.login(peers.idp)).status).toBe(200);
    const userId = ((await person.get('/auth/user')).body as { id: string }).id;
    const cookie = `JWT=${person.jar.get('JWT') ?? ''}; XSRF-TOKEN=${person.jar.get('XSRF-TOKEN') ?? ''}`;
    // A navigation: the cookies, no header.
    const page = await request(t.app).get('/auth/sso/logout').set('Cookie', cookie).set('Accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain(`form-action http://127.0.0.1:8080 ${peers.idp.origin}`);
    // Signed out here: the cookies are cleared and the session is gone from the user's list.
    expect((page.headers['set-cookie'] as unknown as string[]).some((c) => /^JWT=;/.test(c))).toBe(true);
    expect(await t.auth.sessions.list(userId)).toEqual([]);
    const ticket = /name="ticket" value="([^"]+)"/.exec(page.text)?.[1] as string;
    expect(/action="([^"]+)"/.exec(page.text)?.[1]).toBe('http://127.0.0.1:8080/auth/sso/idp-logout');
    // The button: a form post from the page, to the IdP with a signed LogoutRequest.
    const pressed = await request(t.app).post('/auth/sso/idp-logout').set('Origin', 'http://127.0.0.1:8080').type('form').send({ ticket });
    expect(pressed.status).toBe(302);
    expect(pressed.headers.location).toMatch(new RegExp(`^${peers.idp.origin}/slo\\?SAMLRequest=.*&Signature=`));
    // Once; a forged or changed ticket does nothing, nor does another site's form.
    for (const [sent, origin] of [
      [ticket, 'http://127.0.0.1:8080'],
      [`${ticket.slice(0, -2)}xx`, 'http://127.0.0.1:8080'],
      ['', 'http://127.0.0.1:8080'],
    ] as const) {
      const again = await request(t.app).post('/auth/sso/idp-logout').set('Origin', origin).type('form').send({ ticket: sent });
      expect([again.status, again.body.code]).toEqual([400, 'saml_invalid']);
    }
    const crossSite = await request(t.app).post('/auth/sso/idp-logout').set('Origin', 'https://evil.example').type('form').send({ ticket });
    expect(crossSite.status).toBe(403);
  });
});

describe('testing a connection', () => {
  let t: SsoApp;
  beforeEach(async () => {
    peers.idp.encrypt = false;
    peers.idp.user = { nameId: 'tester@customer.test', attributes: { email: ['tester@customer.test'], displayName: ['Tess'], groups: ['Engineering'] } };
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] });
  });
  afterEach(() => t.auth.close());

  it("shows an admin what the IdP sends, even before the connection is enabled, without a session or a member; the admin's own session stays", async () => {
    const { id } = await samlConnection(t, peers.idp, { enabled: false, roles: { map: { Engineering: 'admin' } } });
    const admin = new SsoBrowser(t);
    for (const name of ['JWT', 'XSRF-TOKEN']) admin.jar.set(name, t.owner.jar.get(name)!);
    const started = await admin.start(`connection=${id}&test=1`);
    expect(started.status).toBe(302);
    const report = await admin.post(await peers.idp.follow(started.headers.location as string), peers.idp.origin);
    expect(report.status).toBe(200);
    expect(report.body).toEqual({
      status: 'ok',
      connection: id,
      subject: 'tester@customer.test',
      name: 'Tess',
      email: 'tester@customer.test',
      emailKept: true,
      groups: ['Engineering'],
      roles: ['admin'],
      methods: ['urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport'],
      twoFactors: false,
    });
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as unknown[]).length).toBe(1);
    expect(((await admin.get('/auth/user')).body as { id: string }).id).toBe(t.owner.id);
    // A person cannot use a disabled connection; a test is for the organization's admins only.
    expect((await new SsoBrowser(t).start(`connection=${id}`)).status).toBe(404);
    expect((await new SsoBrowser(t).start(`connection=${id}&test=1`)).status).toBe(401);
    const stranger = new SsoBrowser(t);
    const other = await new Browser(t.app).login('stranger');
    for (const name of ['JWT', 'XSRF-TOKEN']) stranger.jar.set(name, other.jar.get(name)!);
    expect((await stranger.start(`connection=${id}&test=1`)).status).toBe(404);
  });
});

describe('SAML connections: rotation, discovery by organization, bans', () => {
  let t: SsoApp;
  beforeEach(async () => {
    peers.idp.encrypt = false;
    peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'] } };
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [peers.idp.origin] }, { plugins: [admin()], claimsUpdater: rootIsAdmin });
  });
  afterEach(() => t.auth.close());

  it("accepts any of the connection's certificates (a rotation sends old and new), and none besides", async () => {
    const other = await testKeys('another IdP');
    const parts = { kind: 'saml', name: 'parts', idpEntityId: peers.idp.entityId, ssoUrl: `${peers.idp.origin}/sso` };
    const made = await t.owner.post('/auth/orgs/acme/sso/connections', { ...parts, certificates: [other.certificate] });
    expect(made.status).toBe(201);
    peers.idp.trust((await request(t.app).get(`/auth/sso/metadata/${made.body.id}`)).text);
    const refused = await new SsoBrowser(t).login(peers.idp, `connection=${made.body.id}`);
    expect([refused.status, refused.body.code]).toEqual([403, 'saml_invalid']);
    const rotated = await t.owner.patch(`/auth/orgs/acme/sso/connections/${made.body.id}`, {
      certificates: [other.certificate, `-----BEGIN CERTIFICATE-----\n${peers.idp.certificate}\n-----END CERTIFICATE-----`],
    });
    expect(rotated.body.saml.certificates).toHaveLength(2);
    expect((await new SsoBrowser(t).login(peers.idp, `connection=${made.body.id}`)).status).toBe(200);
  });

  it('tells plainly when the stored keys were sealed with another sso({ key })', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-sso-key-'));
    try {
      const first = await ssoApp(peers.smtp, peers.dns, `level://${dir}`, { privateOrigins: [peers.idp.origin] });
      const { id } = await samlConnection(first, peers.idp);
      await first.auth.close();
      const other = orgApp(peers.smtp, `level://${dir}`, { plugins: [sso({ key: 'another-sso-key-0123456789abcdef0123', store: `level://${dir}` })] });
      try {
        const res = await request(other.app).get(`/auth/sso/metadata/${id}`);
        expect([res.status, res.body.code]).toEqual([503, 'unavailable']);
        expect(res.body.error).toContain('sealed with another sso({ key })');
      } finally {
        await other.auth.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds the connection by organization (org=), and refuses a banned SSO user', async () => {
    await samlConnection(t, peers.idp);
    const first = await new SsoBrowser(t).login(peers.idp, 'org=acme');
    expect(first.status).toBe(200);
    expect((await new SsoBrowser(t).start('org=nobody')).body.code).toBe('sso_not_found');
    expect((await new SsoBrowser(t).start('email=someone@elsewhere.test')).body.code).toBe('sso_not_found');
    const root = await new Browser(t.app).login('root');
    expect((await root.post(`/auth/admin/users/${first.body.id}/ban`, { reason: 'left the company' })).status).toBe(200);
    const banned = await new SsoBrowser(t).login(peers.idp, 'org=acme');
    expect([banned.status, banned.body.code]).toEqual([403, 'banned']);
  });
});
