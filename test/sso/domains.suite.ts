import { sso, type SsoPlugin } from '../../src/plugins/sso';
import type { StoreMaker } from '../support/every-store';
import { SSO_KEY, type SsoPeers } from './sso-helpers';
import { setClock } from '../support/clock';
import { Browser, orgApp, tokenOf, type OrgApp } from '../organizations/org-helpers';

/** Two organizations, each with an owner; `acme` also has a plain member. */
async function twoOrgs(t: OrgApp, smtp: SsoPeers['smtp']): Promise<{ owner: Browser; rival: Browser; member: Browser }> {
  const owner = await new Browser(t.app).login('olga');
  const rival = await new Browser(t.app).login('rick');
  const member = await new Browser(t.app).login('mia');
  expect((await owner.post('/auth/orgs', { name: 'Acme', slug: 'acme' })).status).toBe(201);
  expect((await rival.post('/auth/orgs', { name: 'Rival', slug: 'rival' })).status).toBe(201);
  const since = smtp.mails.length;
  expect((await owner.post('/auth/orgs/acme/invitations', { email: 'mia@example.com', role: 'member' })).status).toBe(201);
  expect((await member.post('/auth/orgs/invitations/accept', { token: tokenOf((await smtp.nextMail(since)).body) })).status).toBe(200);
  return { owner, rival, member };
}

/** The verified-domain suite on one store; the peers are read inside its tests. */
export function domainFlow(name: string, describeFn: jest.Describe, storeUri: StoreMaker, peers: SsoPeers): void {
  describeFn(`SSO verified domains (${name} store)`, () => {
    let t: OrgApp;
    let plugin: SsoPlugin;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      const store = await storeUri();
      cleanup = store.cleanup;
      plugin = sso({ key: SSO_KEY, store: store.uri, dns: { servers: [peers.dns.server], timeoutMs: 1000 } });
      t = orgApp(peers.smtp, store.uri, { plugins: [plugin] });
      peers.dns.txt.clear();
    });
    afterEach(async () => {
      jest.useRealTimers();
      await t.auth.close();
      await cleanup();
    });

    it('claims a domain, shows the TXT record, verifies it once DNS has it, and one organization at most holds it', async () => {
      const { owner, rival } = await twoOrgs(t, peers.smtp);
      const claimed = await owner.post('/auth/orgs/acme/sso/domains', { domain: 'Acme.EXAMPLE' });
      expect(claimed.status).toBe(201);
      const record = claimed.body.record as { type: string; name: string; value: string };
      expect(claimed.body).toEqual({
        domain: 'acme.example',
        verified: false,
        enforce: false,
        record: { type: 'TXT', name: '_authgate-challenge.acme.example', value: expect.stringMatching(/^authgate-domain-verification=[0-9a-f]{48}$/) },
      });
      expect((await owner.post('/auth/orgs/acme/sso/domains', { domain: 'acme.example' })).status).toBe(200);

      const early = await owner.post('/auth/orgs/acme/sso/domains/acme.example/verify');
      expect([early.status, early.body.code]).toEqual([400, 'domain_unverified']);
      expect(await plugin.domains.verifiedOwner('acme.example')).toBeUndefined();

      // The rival claims it too (claims are many) and publishes its own value beside Acme's.
      const rivalClaim = await rival.post('/auth/orgs/rival/sso/domains', { domain: 'acme.example' });
      expect(rivalClaim.status).toBe(201);
      expect(rivalClaim.body.record.value).not.toBe(record.value);
      // Another text, and a part of the value, prove nothing.
      peers.dns.txt.set(record.name, ['unrelated text', record.value.slice(0, 40)]);
      expect((await owner.post('/auth/orgs/acme/sso/domains/acme.example/verify')).status).toBe(400);
      peers.dns.txt.set(record.name, ['v=spf1 -all', record.value, rivalClaim.body.record.value]);

      const verified = await owner.post('/auth/orgs/acme/sso/domains/acme.example/verify');
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ domain: 'acme.example', verified: true, verifiedAt: expect.any(Number) });
      const acmeId = ((await owner.get('/auth/orgs/acme')).body as { id: string }).id;
      expect(await plugin.domains.verifiedOwner('acme.example')).toBe(acmeId);
      const second = await rival.post('/auth/orgs/rival/sso/domains/acme.example/verify');
      expect([second.status, second.body.code]).toEqual([409, 'domain_taken']);
      expect(await plugin.domains.verifiedOwner('acme.example')).toBe(acmeId);

      const listed = await owner.get('/auth/orgs/acme/sso/domains');
      expect(listed.body).toEqual([verified.body]);
      await t.auth.events.flush();
      const { events } = await t.auth.events.list({ types: ['sso.domain.verified'] });
      expect(events.map((e) => e.data)).toEqual([{ org: acmeId, domain: 'acme.example' }]);

      // Deleting the claim frees the domain: the rival may verify it now.
      expect((await owner.delete('/auth/orgs/acme/sso/domains/acme.example')).status).toBe(200);
      expect((await rival.post('/auth/orgs/rival/sso/domains/acme.example/verify')).status).toBe(200);
    });

    it('refuses members without org:update, stale logins, other organizations, bad domains and broken DNS, storing nothing', async () => {
      const { owner, rival, member } = await twoOrgs(t, peers.smtp);
      expect((await member.get('/auth/orgs/acme/sso/domains')).status).toBe(403);
      expect((await member.post('/auth/orgs/acme/sso/domains', { domain: 'acme.example' })).status).toBe(403);
      expect((await rival.post('/auth/orgs/acme/sso/domains', { domain: 'acme.example' })).status).toBe(404);
      for (const domain of ['localhost', '10.0.0.1', '*.acme.example', 'acme..example', `${'a'.repeat(64)}.example`, 'acme.example/path', 'a@b.example', 42, null, ''])
        expect([domain, (await owner.post('/auth/orgs/acme/sso/domains', { domain })).status]).toEqual([domain, 400]);
      expect((await owner.get('/auth/orgs/acme/sso/domains')).body).toEqual([]);

      const claimed = await owner.post('/auth/orgs/acme/sso/domains', { domain: 'acme.example' });
      expect((await rival.post('/auth/orgs/rival/sso/domains/acme.example/verify')).status).toBe(404);
      expect((await rival.delete('/auth/orgs/rival/sso/domains/acme.example')).status).toBe(404);
      peers.dns.failing.add('_authgate-challenge.acme.example');
      const broken = await owner.post('/auth/orgs/acme/sso/domains/acme.example/verify');
      expect([broken.status, broken.body.code]).toEqual([502, 'bad_gateway']);
      peers.dns.failing.clear();
      peers.dns.txt.set(claimed.body.record.name, [claimed.body.record.value]);

      setClock(Math.floor(Date.now() / 1000) + 11 * 60);
      const stale = await owner.post('/auth/orgs/acme/sso/domains/acme.example/verify');
      expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
      expect((await owner.get('/auth/orgs/acme/sso/domains')).body).toMatchObject([{ domain: 'acme.example', verified: false }]);
    });

    it("an organization's deletion removes its domains", async () => {
      const { owner } = await twoOrgs(t, peers.smtp);
      const claimed = await owner.post('/auth/orgs/acme/sso/domains', { domain: 'gone.example' });
      peers.dns.txt.set(claimed.body.record.name, [claimed.body.record.value]);
      expect((await owner.post('/auth/orgs/acme/sso/domains/gone.example/verify')).status).toBe(200);
      expect((await owner.delete('/auth/orgs/acme')).status).toBe(200);
      await t.auth.events.flush();
      expect(await plugin.domains.verifiedOwner('gone.example')).toBeUndefined();
    });
  });
}
