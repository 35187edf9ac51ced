import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { apiKeys } from '../../src/api-keys';
import { scim } from '../../src/plugins/scim';
import { sso } from '../../src/plugins/sso';
import { eventually } from '../support/eventually';
import { describePostgres, describeRedis, sharedServer, startPostgres, startRedis } from '../support/servers';
import { orgApp } from '../organizations/org-helpers';
import { samlConnection, SSO_KEY, SsoBrowser, ssoApp, ssoPeers } from '../sso/sso-helpers';
import { Directory } from './scim-helpers';

const peers = ssoPeers();
const postgres = sharedServer(startPostgres);
const redis = sharedServer(startRedis);
const describeBoth: jest.Describe = ((name: string, fn: () => void) => describePostgres(name, () => describeRedis(name, fn))) as jest.Describe;

describeBoth('a deprovisioning on two instances (PostgreSQL database, Redis state)', () => {
  it("the directory deactivates a person on one instance: the other refuses the person's session, key and IdP login", async () => {
    const database = `${(await postgres()).url}?schema=scimi_${randomBytes(6).toString('hex')}`;
    const shared = { database, stateStore: `${(await redis()).url}?prefix=si${randomBytes(4).toString('hex')}:`, revocationCheck: 'every-request' as const };
    const a = await ssoApp(peers.smtp, peers.dns, database, { privateOrigins: [peers.idp.origin] }, { ...shared, plugins: [scim(), apiKeys()] });
    const b = orgApp(peers.smtp, database, { ...shared, plugins: [sso({ key: SSO_KEY, store: database, privateOrigins: [peers.idp.origin] }), scim(), apiKeys()] });
    try {
      await samlConnection(a, peers.idp);
      const directory = await Directory.of(a.app, a.owner, 'acme');
      const made = await directory.createUser('dana@customer.test');
      expect(made.status).toBe(201);

      peers.idp.user = { nameId: 'dana@customer.test', attributes: { email: ['dana@customer.test'] } };
      const dana = new SsoBrowser(b);
      expect((await dana.login(peers.idp, 'email=dana@customer.test')).status).toBe(200);
      const userId = (await dana.get('/auth/user')).body.id as string;
      expect(userId).toMatch(/^scim_/);
      expect((await a.owner.patch(`/auth/orgs/acme/members/${userId}`, { roles: ['admin'] })).status).toBe(200);
      const key = await dana.jar.on(request(b.app).post('/auth/orgs/acme/api-keys')).send({ name: 'export', roles: ['member'] });
      expect(key.status).toBe(201);
      const withKey = (): request.Test =>
        request(b.app)
          .get('/workspace')
          .set('Authorization', `Bearer ${key.body.key as string}`);
      expect((await withKey()).status).toBe(200);

      const off = await directory.patchUser(made.body.id as string, { op: 'replace', path: 'active', value: false });
      expect(off.status).toBe(200);
      const answered = Date.now();
      await eventually(async () => expect((await dana.get('/auth/user')).status).toBe(401), 5000, 20);
      await eventually(async () => expect((await withKey()).status).toBe(401), 5000, 20);
      // Both refused on the other instance within a second of the directory's answer.
      expect(Date.now() - answered).toBeLessThan(1000);
      const refused = await new SsoBrowser(b).login(peers.idp, 'email=dana@customer.test');
      expect([refused.status, refused.body.code]).toEqual([403, 'member_suspended']);
    } finally {
      await Promise.all([a.auth.close(), b.auth.close()]);
    }
  });
});
