import request from 'supertest';
import { scim, type ScimPlugin } from '../../src/plugins/scim';
import { setClock } from '../support/clock';
import type { SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, tokenOf, type OrgApp } from '../organizations/org-helpers';
import type { StoreMaker } from '../support/every-store';

const SCIM_JSON = /^application\/scim\+json/;

/** The suite on one store; `peers.smtp` is read inside its tests. */
export function tokenSuite(name: string, describeFn: jest.Describe, store: StoreMaker, peers: { smtp: SmtpPeer }): void {
  describeFn(`SCIM tokens and discovery (${name} store)`, () => {
    let t: OrgApp;
    let plugin: ScimPlugin;
    let cleanup: () => Promise<void>;
    let owner: Browser;
    let slug: string;
    let made = 0;
    // One app per store (a fresh database costs seconds on some); a fresh organization and owner login per test.
    beforeAll(async () => {
      const opened = await store();
      cleanup = opened.cleanup;
      plugin = scim({ store: opened.uri });
      t = orgApp(peers.smtp, opened.uri, { plugins: [plugin] });
    });
    beforeEach(async () => {
      slug = `acme-${++made}`;
      owner = await new Browser(t.app).login('olga');
      expect((await owner.post('/auth/orgs', { name: 'Acme', slug })).status).toBe(201);
    });
    afterEach(() => jest.useRealTimers());
    afterAll(async () => {
      await t?.auth.close();
      await cleanup?.();
    });

    it("an admin makes a token (shown once, kept hashed); the directory reads the service's discovery with it; revoked, it stops", async () => {
      const made = await owner.post(`/auth/orgs/${slug}/scim/tokens`, { name: 'Okta' });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ name: 'Okta', token: expect.stringMatching(/^scim_[0-9a-f]{64}$/), baseUrl: 'http://127.0.0.1:8080/auth/scim/v2' });
      const token = made.body.token as string;
      const listed = await owner.get(`/auth/orgs/${slug}/scim/tokens`);
      expect(listed.body).toEqual([{ id: made.body.id, name: 'Okta', prefix: token.slice(0, 12), created: made.body.created }]);
      expect(JSON.stringify(listed.body)).not.toContain(token);

      const config = await request(t.app).get('/auth/scim/v2/ServiceProviderConfig').set('Authorization', `Bearer ${token}`);
      expect(config.status).toBe(200);
      expect(config.headers['content-type']).toMatch(SCIM_JSON);
      expect(config.body).toMatchObject({
        patch: { supported: true },
        bulk: { supported: false },
        filter: { supported: true, maxResults: 100 },
        authenticationSchemes: [{ type: 'oauthbearertoken' }],
      });
      const types = await request(t.app).get('/auth/scim/v2/ResourceTypes').set('Authorization', `Bearer ${token}`);
      expect(types.body).toMatchObject({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: 2,
        Resources: [
          { id: 'User', endpoint: '/Users' },
          { id: 'Group', endpoint: '/Groups' },
        ],
      });
      const user = await request(t.app).get('/auth/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User').set('Authorization', `Bearer ${token}`);
      expect(user.body.attributes.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['userName', 'externalId', 'emails', 'active']));
      expect((await request(t.app).get('/auth/scim/v2/Schemas').set('Authorization', `Bearer ${token}`)).body.totalResults).toBe(3);

      expect((await owner.delete(`/auth/orgs/${slug}/scim/tokens/${made.body.id}`)).status).toBe(200);
      const refused = await request(t.app).get('/auth/scim/v2/ServiceProviderConfig').set('Authorization', `Bearer ${token}`);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('Bearer');
      expect(refused.body).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401', detail: expect.stringContaining('SCIM token') });
      await t.auth.events.flush();
      const { events } = await t.auth.events.list({ types: ['scim.token.created', 'scim.token.revoked'] });
      expect(events.map((e) => e.type)).toEqual(['scim.token.revoked', 'scim.token.created']);
    });

    it('refuses missing, malformed and foreign tokens, unknown resources, non-admins, stale logins and a sixth token', async () => {
      for (const auth of [undefined, 'Bearer', 'Bearer nope', `Bearer scim_${'0'.repeat(64)}`, 'Basic c2NpbTpzY2lt', `Bearer agk_${'a'.repeat(40)}`]) {
        const req = request(t.app).get('/auth/scim/v2/Schemas');
        const res = await (auth === undefined ? req : req.set('Authorization', auth));
        expect([auth, res.status, res.body.schemas]).toEqual([auth, 401, ['urn:ietf:params:scim:api:messages:2.0:Error']]);
      }
      const { token } = (await owner.post(`/auth/orgs/${slug}/scim/tokens`, {})).body as { token: string };
      const missing = await request(t.app).get('/auth/scim/v2/ResourceTypes/Printer').set('Authorization', `Bearer ${token}`);
      expect([missing.status, missing.body.status]).toEqual([404, '404']);

      const since = peers.smtp.mails.length;
      expect((await owner.post(`/auth/orgs/${slug}/invitations`, { email: 'mia@example.com', role: 'member' })).status).toBe(201);
      const member = await new Browser(t.app).login('mia');
      expect((await member.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
      expect((await member.post(`/auth/orgs/${slug}/scim/tokens`, {})).status).toBe(403);
      const rival = await new Browser(t.app).login('rick');
      expect((await rival.post('/auth/orgs', { name: 'Rival', slug: 'rival' })).status).toBe(201);
      const theirs = (await rival.get('/auth/orgs/rival/scim/tokens')).body as unknown[];
      expect(theirs).toEqual([]);
      const ours = ((await owner.get(`/auth/orgs/${slug}/scim/tokens`)).body as Array<{ id: string }>)[0]!;
      expect((await rival.delete(`/auth/orgs/rival/scim/tokens/${ours.id}`)).status).toBe(404);
      expect((await rival.delete(`/auth/orgs/${slug}/scim/tokens/${ours.id}`)).status).toBe(404);

      for (let i = 0; i < 4; i++) expect((await owner.post(`/auth/orgs/${slug}/scim/tokens`, { name: `t${i}` })).status).toBe(201);
      const sixth = await owner.post(`/auth/orgs/${slug}/scim/tokens`, {});
      expect([sixth.status, sixth.body.code]).toEqual([409, 'limit_reached']);
      setClock(Math.floor(Date.now() / 1000) + 11 * 60);
      const stale = await owner.delete(`/auth/orgs/${slug}/scim/tokens/${ours.id}`);
      expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
    });

    it("a token ends with its author's power: removed from the organization, the admin's tokens are revoked", async () => {
      const since = peers.smtp.mails.length;
      expect((await owner.post(`/auth/orgs/${slug}/invitations`, { email: 'ada@example.com', role: 'admin' })).status).toBe(201);
      const ada = await new Browser(t.app).login('ada');
      expect((await ada.post('/auth/orgs/invitations/accept', { token: tokenOf((await peers.smtp.nextMail(since)).body) })).status).toBe(200);
      const { token } = (await ada.post(`/auth/orgs/${slug}/scim/tokens`, { name: 'hers' })).body as { token: string };
      expect((await request(t.app).get('/auth/scim/v2/Schemas').set('Authorization', `Bearer ${token}`)).status).toBe(200);
      expect((await owner.delete(`/auth/orgs/${slug}/members/${ada.id}`)).status).toBe(200);
      await t.auth.events.flush();
      expect((await request(t.app).get('/auth/scim/v2/Schemas').set('Authorization', `Bearer ${token}`)).status).toBe(401);
      expect(await plugin.tokens.organizationOf(token)).toBeUndefined();
    });
  });
}
