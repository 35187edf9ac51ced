import type { StoreMaker } from '../support/every-store';
import { samlConnection, SsoBrowser, ssoApp, type SsoApp, type SsoPeers } from './sso-helpers';

/** The SAML connection suite on one store; the peers are read inside its tests. */
export function samlSuite(name: string, describeFn: jest.Describe, store: StoreMaker, peers: SsoPeers): void {
  describeFn(`SAML connections (${name} store)`, () => {
    let t: SsoApp;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      peers.idp.encrypt = false;
      peers.idp.user = { nameId: 'someone@customer.test', attributes: { email: ['someone@customer.test'], displayName: ['Some One'], groups: ['Engineering'] } };
      const made = await store();
      cleanup = made.cleanup;
      t = await ssoApp(peers.smtp, peers.dns, made.uri, { privateOrigins: [peers.idp.origin] });
    });
    afterEach(async () => {
      await t.auth.close();
      await cleanup();
    });

    it('logs a person of the verified domain in through the IdP: a session, a member with roles from groups, encrypted assertions, an e-mail kept only in a verified domain', async () => {
      const { id, view } = await samlConnection(t, peers.idp, { roles: { map: { Engineering: 'admin' } } });
      expect(view).toMatchObject({
        kind: 'saml',
        enabled: true,
        saml: {
          idpEntityId: peers.idp.entityId,
          ssoUrl: `${peers.idp.origin}/sso`,
          allowIdpInitiated: false,
          certificates: [{ fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) }],
        },
        serviceProvider: { entityId: `http://127.0.0.1:8080/auth/sso/metadata/${id}`, acsUrl: `http://127.0.0.1:8080/auth/sso/acs/${id}` },
      });
      const person = new SsoBrowser(t);
      const done = await person.login(peers.idp);
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ id: expect.stringMatching(/^sso_[0-9a-f]{40}$/), name: 'Some One', email: 'someone@customer.test', attrs: { sso_org: t.orgId, sso_connection: id } });
      const me = await person.get('/auth/user');
      expect(me.status).toBe(200);
      const orgs = await person.get('/auth/orgs');
      expect(orgs.body).toMatchObject([{ id: t.orgId, roles: ['admin'] }]);

      // A second login is the same user; changed groups change the roles.
      peers.idp.user.attributes.groups = ['Sales'];
      const again = await new SsoBrowser(t).login(peers.idp);
      expect(again.body.id).toBe(done.body.id);
      expect((await person.get('/auth/orgs')).body).toMatchObject([{ roles: ['member'] }]);

      // Encrypted assertions (with the connection's own key) are taken as well.
      peers.idp.encrypt = true;
      const encrypted = await new SsoBrowser(t).login(peers.idp);
      expect([encrypted.status, encrypted.body.id]).toEqual([200, done.body.id]);
      peers.idp.encrypt = false;

      // An e-mail is kept only in a domain the organization verified (the user is the IdP's subject, never an account of that address).
      peers.idp.user = { nameId: 'boss', attributes: { email: ['ceo@bank.example'] } };
      const foreign = await new SsoBrowser(t).login(peers.idp);
      expect(foreign.status).toBe(200);
      expect(foreign.body.email).toBeUndefined();
      expect(foreign.body.name).toBe('boss');

      // The connection as the routes show it: its values, never a key or a secret.
      const listed = await t.owner.get('/auth/orgs/acme/sso/connections');
      expect(listed.body).toEqual([expect.objectContaining({ id, kind: 'saml' })]);
      expect(JSON.stringify(listed.body)).not.toMatch(/PRIVATE KEY|v1\./);
      const one = await t.owner.get(`/auth/orgs/acme/sso/connections/${id}`);
      expect(one.body).toEqual(listed.body[0]);
    });
  });
}
