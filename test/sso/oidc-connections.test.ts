import request from 'supertest';
import { followToApp, startOidcPeer, type OidcPeer } from '../support/oidc-peer';
import { freePort } from '../support/ports';
import { enableTwoFactor, SsoBrowser, ssoApp, type SsoApp, ssoPeers } from './sso-helpers';

const APP = 'http://127.0.0.1:8080';
const TWO_FACTOR_KEY = 'test-two-factor-key-0123456789abcdef';

const peers = ssoPeers();

describe('OpenID Connect connections (oidc-provider as the customer IdP)', () => {
  let t: SsoApp;
  let peer: OidcPeer | undefined;
  let issuer: string;
  beforeEach(async () => {
    issuer = `http://127.0.0.1:${await freePort()}`;
    t = await ssoApp(peers.smtp, peers.dns, 'memory://', { privateOrigins: [issuer, peers.idp.origin] }, { twoFactor: { key: TWO_FACTOR_KEY } });
  });
  afterEach(async () => {
    await peer?.stop();
    peer = undefined;
    await t.auth.close();
  });

  /**
   * The connection, then the IdP knowing its redirect URI: an admin's first try with the issuer
   * down is a 400; the IdP comes up with a stand-in redirect URI, the connection is made, and the
   * IdP restarts with the connection's own (as the customer's IT registers it).
   */
  async function connect(options: { groups?: string[]; amr?: string[]; extra?: Record<string, unknown> } = {}): Promise<{ id: string; redirectUri: string }> {
    const body = { kind: 'oidc', name: 'Customer OIDC', issuer, clientId: 'authgate-test', clientSecret: 'authgate-test-client-secret-0123456789', ...options.extra };
    const early = await t.owner.post('/auth/orgs/acme/sso/connections', body);
    expect([early.status, early.body.error]).toEqual([400, expect.stringContaining('discovery document')]);
    const settings = { port: Number(new URL(issuer).port), emailDomain: 'customer.test', groups: options.groups, amr: options.amr };
    peer = await startOidcPeer([`${APP}/auth/sso/oidc/pending`], 'someone', settings);
    const made = await t.owner.post('/auth/orgs/acme/sso/connections', body);
    expect(made.status).toBe(201);
    await peer.stop();
    peer = await startOidcPeer([made.body.redirectUri], 'someone', settings);
    return { id: made.body.id, redirectUri: made.body.redirectUri };
  }

  async function login(person: SsoBrowser, query = 'email=someone@customer.test'): Promise<request.Response> {
    const started = await person.start(query);
    expect(started.status).toBe(302);
    const back = await followToApp(new URL(started.headers.location as string), APP);
    return person.get(`${back.pathname}${back.search}`);
  }

  it('logs in through discovery, PKCE and a verified id_token; provisions the member with mapped roles', async () => {
    const { id, redirectUri } = await connect({ groups: ['admins'], extra: { roles: { map: { admins: 'admin' } } } });
    expect(redirectUri).toBe(`${APP}/auth/sso/oidc/${id}`);
    const listed = await t.owner.get(`/auth/orgs/acme/sso/connections/${id}`);
    expect(listed.body).toMatchObject({ kind: 'oidc', oidc: { issuer, clientId: 'authgate-test' } });
    expect(JSON.stringify(listed.body)).not.toContain('authgate-test-client-secret');
    const person = new SsoBrowser(t);
    const done = await login(person);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: expect.stringMatching(/^sso_/), email: 'someone@customer.test', attrs: { sso_org: t.orgId, sso_connection: id } });
    expect((await person.get('/auth/orgs')).body).toMatchObject([{ id: t.orgId, roles: ['admin'] }]);
  });

  it('refuses a callback at another connection than the one the login started at, and a replayed callback', async () => {
    const { id } = await connect();
    const person = new SsoBrowser(t);
    const started = await person.start('email=someone@customer.test');
    const back = await followToApp(new URL(started.headers.location as string), APP);
    const elsewhere = await person.get(`/auth/sso/oidc/sso_000000000000000000000000${back.search}`);
    expect(elsewhere.status).toBe(404);
    expect((await person.get(`${back.pathname}${back.search}`)).status).toBe(200);
    const replay = new SsoBrowser(t);
    replay.jar.set('JWT', started.headers['set-cookie']![0]!.split(';')[0]!.slice(4));
    expect((await replay.get(`/auth/sso/oidc/${id}${back.search}`)).status).toBe(403);
  });

  it('refuses issuers, metadata and IdP URLs on private addresses unless allowed (SSRF), storing nothing', async () => {
    for (const body of [
      { kind: 'oidc', name: 'x', issuer: 'http://10.0.0.1/realm', clientId: 'c', clientSecret: 's' },
      { kind: 'oidc', name: 'x', issuer: 'https://127.0.0.1:1/realm', clientId: 'c', clientSecret: 's' },
      { kind: 'oidc', name: 'x', issuer: 'https://user:pw@id.example/', clientId: 'c', clientSecret: 's' },
      { kind: 'saml', name: 'x', metadataUrl: 'http://169.254.169.254/latest/meta-data' },
      { kind: 'saml', name: 'x', metadataUrl: 'https://169.254.169.254/latest/meta-data' },
      { kind: 'saml', name: 'x', metadataUrl: 'https://localhost:1/metadata' },
      { kind: 'saml', name: 'x', metadataUrl: `${peers.idp.origin.replace('127.0.0.1', 'localhost')}/metadata` },
      { kind: 'saml', name: 'x', idpEntityId: 'e', ssoUrl: 'http://10.0.0.1/sso', certificates: [peers.idp.certificate] },
      { kind: 'saml', name: 'x', idpEntityId: 'e', ssoUrl: 'javascript:alert(1)', certificates: [peers.idp.certificate] },
    ]) {
      const res = await t.owner.post('/auth/orgs/acme/sso/connections', body);
      expect([JSON.stringify(body).slice(0, 80), res.status, res.body.code]).toEqual([JSON.stringify(body).slice(0, 80), 400, 'bad_request']);
    }
    expect((await t.owner.get('/auth/orgs/acme/sso/connections')).body).toEqual([]);
    // The IdP's own origin is allowed: its metadata is fetched.
    const fetched = await t.owner.post('/auth/orgs/acme/sso/connections', { kind: 'saml', name: 'fetched', metadataUrl: `${peers.idp.origin}/metadata` });
    expect([fetched.status, fetched.body.saml?.idpEntityId]).toEqual([201, peers.idp.entityId]);
  });

  it("counts the IdP's amr as two factors only when the connection says so", async () => {
    const { id } = await connect({ amr: ['pwd', 'mfa'] });
    const person = new SsoBrowser(t);
    expect((await login(person)).status).toBe(200);
    await enableTwoFactor(person);
    const held = await login(new SsoBrowser(t));
    expect([held.status, held.body.status]).toEqual([202, 'second factor required']);
    expect((await t.owner.patch(`/auth/orgs/acme/sso/connections/${id}`, { mfaContexts: ['mfa'] })).status).toBe(200);
    expect((await login(new SsoBrowser(t))).status).toBe(200);
  });

  it("tests a connection for an admin: the verified claims and what a login would make of them, no session, the admin's kept", async () => {
    const { id } = await connect({ groups: ['admins'], extra: { roles: { map: { admins: 'admin' } } } });
    const admin = new SsoBrowser(t);
    for (const name of ['JWT', 'XSRF-TOKEN']) admin.jar.set(name, t.owner.jar.get(name)!);
    const started = await admin.start(`connection=${id}&test=1`);
    expect(started.status).toBe(302);
    const back = await followToApp(new URL(started.headers.location as string), APP);
    const report = await admin.get(`${back.pathname}${back.search}`);
    expect(report.body).toMatchObject({ status: 'ok', connection: id, subject: 'someone', email: 'someone@customer.test', emailKept: true, groups: ['admins'], roles: ['admin'] });
    expect(((await admin.get('/auth/user')).body as { id: string }).id).toBe(t.owner.id);
    expect(((await t.owner.get('/auth/orgs/acme/members')).body as unknown[]).length).toBe(1);
  });
});
