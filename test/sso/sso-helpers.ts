import request from 'supertest';
import type { Response } from 'supertest';
import { sso, type SsoOptions, type SsoPlugin } from '../../src/plugins/sso';
import { startDnsPeer, type DnsPeer } from '../support/dns-server';
import { startSamlIdp, type SamlIdpPeer, type PostedForm, type Tamper } from '../support/saml-idp';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, type OrgApp } from '../organizations/org-helpers';
import { CookieJar } from '../support/cookie-jar';
import { awayFromStepEdge, codeNow } from '../support/totp-code';

/** The peers of the SSO suites: an SMTP server (invitations), a DNS server (domain proofs) and a SAML IdP. */
export interface SsoPeers {
  smtp: SmtpPeer;
  dns: DnsPeer;
  idp: SamlIdpPeer;
}

/** Starts the {@link SsoPeers} before the file's tests and stops them after; read them inside tests. */
export function ssoPeers(): SsoPeers {
  const peers = {} as SsoPeers;
  beforeAll(async () => {
    [peers.smtp, peers.dns, peers.idp] = await Promise.all([startSmtpPeer(), startDnsPeer(), startSamlIdp()]);
  });
  afterAll(async () => {
    await Promise.all([peers.smtp?.close(), peers.dns?.close(), peers.idp?.close()]);
  });
  return peers;
}

/** The key every SSO test seals with. */
export const SSO_KEY = 'test-sso-key-0123456789abcdef0123456789';

/** An app with organizations and SSO, an owner of `acme` who verified `customer.test`. */
export interface SsoApp extends OrgApp {
  sso: SsoPlugin;
  owner: Browser;
  orgId: string;
}

/** Starts the app on `store`, makes `acme` and verifies its domain through the DNS peer. */
export async function ssoApp(
  smtp: SmtpPeer,
  dns: DnsPeer,
  store: string,
  options: Partial<SsoOptions> = {},
  appOptions: Parameters<typeof orgApp>[2] = {},
  orgOptions: Parameters<typeof orgApp>[3] = {},
): Promise<SsoApp> {
  const plugin = sso({ key: SSO_KEY, store, dns: { servers: [dns.server], timeoutMs: 1000 }, ...options });
  const t = orgApp(smtp, store, { ...appOptions, plugins: [plugin, ...(appOptions.plugins ?? [])] }, orgOptions);
  const owner = await new Browser(t.app).login('olga');
  const org = await owner.post('/auth/orgs', { name: 'Acme', slug: 'acme' });
  expect(org.status).toBe(201);
  const claim = await owner.post('/auth/orgs/acme/sso/domains', { domain: 'customer.test' });
  dns.txt.set(claim.body.record.name, [claim.body.record.value]);
  expect((await owner.post('/auth/orgs/acme/sso/domains/customer.test/verify')).status).toBe(200);
  return { ...t, sso: plugin, owner, orgId: org.body.id as string };
}

/** Creates a SAML connection of `acme` from the IdP's metadata and makes the IdP trust the SP's. */
export async function samlConnection(t: SsoApp, idp: SamlIdpPeer, extra: Record<string, unknown> = {}): Promise<{ id: string; acs: string; view: Record<string, unknown> }> {
  const made = await t.owner.post('/auth/orgs/acme/sso/connections', { kind: 'saml', name: 'Customer IdP', metadataXml: idp.metadata, ...extra });
  expect(made.status).toBe(201);
  const id = made.body.id as string;
  const metadata = await request(t.app).get(`/auth/sso/metadata/${id}`);
  expect(metadata.status).toBe(200);
  idp.trust(metadata.text);
  return { id, acs: new URL(made.body.serviceProvider.acsUrl).pathname, view: made.body };
}

/** One person's browser going through an SSO login. */
export class SsoBrowser {
  readonly jar = new CookieJar();

  constructor(private readonly t: OrgApp) {}

  /** The app this browser talks to. */
  get app(): OrgApp['app'] {
    return this.t.app;
  }

  /** `GET /auth/sso/login?...`: the redirect to the IdP. */
  async start(query: string): Promise<Response> {
    return this.jar.keep(await this.jar.on(request(this.t.app).get(`/auth/sso/login?${query}`)));
  }

  /** Posts the IdP's form to the ACS, as the browser does (from the IdP's origin). */
  async post(form: PostedForm, origin = 'http://127.0.0.1:1'): Promise<Response> {
    const path = new URL(form.action).pathname;
    return this.jar.keep(await this.jar.on(request(this.t.app).post(path).set('Origin', origin).type('form').send({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState })));
  }

  /** The whole login: start, the IdP, the ACS. */
  async login(idp: SamlIdpPeer, query = 'email=someone@customer.test', tamper?: Tamper): Promise<Response> {
    const started = await this.start(query);
    expect(started.status).toBe(302);
    return this.post(await idp.follow(started.headers.location as string, tamper), idp.origin);
  }

  get(path: string): Promise<Response> {
    return this.jar.on(request(this.t.app).get(path)).then((r) => this.jar.keep(r));
  }
}

/** Turns two-factor on for the person signed in through `browser` (enrol, confirm with a code). */
export async function enableTwoFactor(browser: SsoBrowser): Promise<void> {
  const enrolled = await browser.jar.on(request(browser.app).post('/auth/2fa/enroll'));
  expect(enrolled.status).toBe(200);
  await awayFromStepEdge();
  const confirmed = await browser.jar.on(request(browser.app).post('/auth/2fa/confirm')).send({ code: codeNow(enrolled.body.secret as string) });
  expect(confirmed.status).toBe(200);
}
