import { startDnsPeer, type DnsPeer } from '../support/dns-server';
import { startSamlIdp, type SamlIdpPeer } from '../support/saml-idp';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp } from './sso-helpers';

let smtp: SmtpPeer;
let dns: DnsPeer;
let idp: SamlIdpPeer;
beforeAll(async () => {
  [smtp, dns, idp] = await Promise.all([startSmtpPeer(), startDnsPeer(), startSamlIdp()]);
});
afterAll(async () => {
  await Promise.all([smtp.close(), dns.close(), idp.close()]);
});

describe('SAML connections (memory store)', () => {
  let t: SsoApp;
  beforeEach(async () => {
    idp.encrypt = false;
    idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'], displayName: ['Some One'], groups: ['Engineering'] } };
    t = await ssoApp(smtp, dns, 'memory://', { privateOrigins: [idp.origin] });
  });
  afterEach(() => t.auth.close());

  it('logs a person of the verified domain in through the IdP: a session, a member of the organization, roles from groups', async () => {
    const { id, view } = await samlConnection(t, idp, { roles: { map: { Engineering: 'admin' } } });
    expect(view).toMatchObject({
      kind: 'saml',
      enabled: true,
      saml: { idpEntityId: idp.entityId, ssoUrl: `${idp.origin}/sso`, allowIdpInitiated: false, certificates: [{ fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) }] },
      serviceProvider: { entityId: `http://127.0.0.1:8080/auth/sso/metadata/${id}`, acsUrl: `http://127.0.0.1:8080/auth/sso/acs/${id}` },
    });
    const person = new SsoBrowser(t);
    const done = await person.login(idp);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: expect.stringMatching(/^sso_[0-9a-f]{40}$/), name: 'Some One', email: 'someone@customer.test', attrs: { sso_org: t.orgId, sso_connection: id } });
    const me = await person.get('/auth/user');
    expect(me.status).toBe(200);
    const orgs = await person.get('/auth/orgs');
    expect(orgs.body).toMatchObject([{ id: t.orgId, roles: ['admin'] }]);

    // A second login is the same user; changed groups change the roles.
    idp.user.attributes.groups = ['Sales'];
    const again = await new SsoBrowser(t).login(idp);
    expect(again.body.id).toBe(done.body.id);
    expect((await person.get('/auth/orgs')).body).toMatchObject([{ roles: ['member'] }]);
  });

  it('accepts encrypted assertions', async () => {
    await samlConnection(t, idp);
    idp.encrypt = true;
    const done = await new SsoBrowser(t).login(idp);
    expect(done.status).toBe(200);
    expect(done.body.email).toBe('someone@customer.test');
  });
});
