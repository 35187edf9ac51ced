import { join } from 'node:path';
import { Packet, UDPServer } from 'dns2';
import { hashId, type User } from '../../src';
import type { OrganizationsPlugin } from '../../src/organizations';
import type { SsoPlugin } from '../../src/plugins/sso';
import { startCustomerIdp, type CustomerIdp } from '../customer-idp/idp';

/** The organization, domain and connection the example sets up for its customer IdP. */
export const SSO_DEMO = { org: 'customer', orgName: 'Customer Inc.', domain: 'customer.test', connection: 'Customer IdP (example)', person: 'someone@customer.test' } as const;

/** A DNS server on loopback that answers the TXT records the demo's domain proof needs (a real deployment has its own DNS). */
export async function startDemoDns(): Promise<{ server: string; txt: Map<string, string>; close(): Promise<void> }> {
  const txt = new Map<string, string>();
  const dns = new UDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const question = request.questions[0];
    const value = question ? txt.get(question.name.toLowerCase()) : undefined;
    if (question && value !== undefined) response.answers.push(Packet.createResourceFromQuestion(question, { type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data: value }));
    else response.header.rcode = 3;
    // dns2's send answers a promise of the datagram sent; a lost answer is the resolver's to retry.
    void send(response);
  });
  await dns.listen(0, '127.0.0.1');
  return { server: `127.0.0.1:${dns.address().port}`, txt, close: () => new Promise((resolve) => dns.close(() => resolve())) };
}

/**
 * Sets up SSO for the demo, as a customer's IT would through the routes: the organization
 * "Customer Inc." (owned by the demo admin), its verified domain `customer.test`, and a SAML
 * connection to the example's customer IdP. Idempotent: a restart finds them and refreshes the
 * connection from the IdP's metadata.
 */
async function setUpSsoDemo(options: { orgs: OrganizationsPlugin; sso: SsoPlugin; dns: { txt: Map<string, string> }; idp: CustomerIdp; authBase: string; owner: User }): Promise<void> {
  const { orgs, sso, owner, idp, authBase } = options;
  if ((await orgs.service.lookup(SSO_DEMO.org)) === undefined) await orgs.service.create(owner, { name: SSO_DEMO.orgName, slug: SSO_DEMO.org });
  const claim = (await sso.domains.claim(SSO_DEMO.org, owner, SSO_DEMO.domain)).domain;
  options.dns.txt.set(claim.record.name, claim.record.value);
  if (!claim.verified) await sso.domains.verify(SSO_DEMO.org, owner, SSO_DEMO.domain, {});
  const client = {};
  const settings = { name: SSO_DEMO.connection, metadataXml: idp.metadata, roles: { defaultRole: 'member' } };
  let known = (await sso.connections.list(SSO_DEMO.org, owner, authBase)).find((c) => c.name === SSO_DEMO.connection);
  const stored = known && (await sso.connections.byId(known.id));
  if (known && stored) {
    try {
      sso.connections.serviceProvider(stored, authBase);
    } catch {
      // Sealed with an earlier start's key (AUTH_SECRET is random unless set): made again.
      await sso.connections.remove(SSO_DEMO.org, owner, known.id, client);
      known = undefined;
    }
  }
  const connection = known
    ? await sso.connections.update(SSO_DEMO.org, owner, known.id, settings, authBase, client)
    : await sso.connections.create(SSO_DEMO.org, owner, { kind: 'saml', ...settings }, authBase, client);
  const current = await sso.connections.byId(connection.id);
  if (current) idp.trust(sso.connections.serviceProvider(current, authBase).metadata());
}

/** The SSO demo's parts that run beside the app: the customer IdP and the DNS proving its domain. */
export interface SsoDemo {
  /** What the app's configuration takes from the demo (`ssoDns`, `customerIdpOrigin`). */
  config: { ssoDns: string; customerIdpOrigin: string };
  /** Sets the organization, domain and connection up in the app (see {@link setUpSsoDemo}). */
  setUp(app: { orgs: OrganizationsPlugin; sso: SsoPlugin }, authBase: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the SSO demo's customer IdP on `port` (its key kept under `var/`, or in `keysFile`; over https with `tls`) and its DNS. */
export async function startSsoDemo(port: number, keysFile = join(process.cwd(), 'var', 'customer-idp', 'keys.json'), tls?: { key: string; cert: string }): Promise<SsoDemo> {
  const dns = await startDemoDns();
  const idp = await startCustomerIdp(port, keysFile, tls).catch(async (err: unknown) => {
    await dns.close();
    throw err;
  });
  return {
    config: { ssoDns: dns.server, customerIdpOrigin: idp.origin },
    setUp: ({ orgs, sso }, authBase) => setUpSsoDemo({ orgs, sso, dns, idp, authBase, owner: { id: hashId('local', 'admin'), name: 'admin', picture: '' } }),
    close: async () => {
      await Promise.all([idp.close(), dns.close()]);
    },
  };
}
