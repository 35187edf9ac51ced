import request from 'supertest';
import { accountsOn } from '../support/account-app';
import { admin } from '../../src/admin';
import { sso } from '../../src/plugins/sso';
import { scim } from '../../src/plugins/scim';
import { activeUserOn } from '../admin/account-steps';
import { rootIsAdmin } from '../admin/admin-helpers';
import { mailTo } from '../support/account-app';
import { startDnsPeer, type DnsPeer } from '../support/dns-server';
import { startSamlIdp, type SamlIdpPeer } from '../support/saml-idp';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, tokenOf, type OrgApp } from '../organizations/org-helpers';
import { SSO_KEY } from './sso-helpers';

/**
 * A connection decides who may sign in to an organization, so it follows the policy of every
 * grant of access: made with a fresh login, an event, and ended with its author's power (a reset
 * of their credentials, a ban, their removal from the organization).
 */
describe('a connection and a SCIM token end with the power of who made (or changed) them last', () => {
  let smtp: SmtpPeer;
  let dns: DnsPeer;
  let idp: SamlIdpPeer;
  let t: OrgApp;

  beforeAll(async () => {
    [smtp, dns, idp] = await Promise.all([startSmtpPeer(), startDnsPeer(), startSamlIdp()]);
    const accountService = accountsOn(smtp);
    t = orgApp(smtp, 'memory://', { plugins: [accountService, admin(), sso({ key: SSO_KEY, privateOrigins: [idp.origin], dns: { servers: [dns.server] } }), scim()], claimsUpdater: rootIsAdmin });
    t.app.use('/account', accountService.router);
  });
  afterAll(async () => {
    await t.auth.close();
    await Promise.all([smtp.close(), dns.close(), idp.close()]);
  });

  /** An organization of `owner` with `adminName` as an admin who made a connection there. */
  async function adminWithConnection(owner: Browser, adminBrowser: Browser): Promise<{ org: string; connection: string; scimToken: string }> {
    const { id: org } = (await owner.post('/auth/orgs', { name: `Org of ${owner.id.slice(-6)}` })).body as { id: string };
    const since = smtp.mails.length;
    expect((await owner.post(`/auth/orgs/${org}/invitations`, { email: 'admin@example.com', role: 'admin' })).status).toBe(201);
    expect((await adminBrowser.post('/auth/orgs/invitations/accept', { token: tokenOf((await smtp.nextMail(since)).body) })).status).toBe(200);
    const made = await adminBrowser.post(`/auth/orgs/${org}/sso/connections`, { kind: 'saml', name: 'theirs', metadataXml: idp.metadata });
    expect(made.status).toBe(201);
    // A SCIM token is a grant of the same kind: it ends the same way.
    const token = await adminBrowser.post(`/auth/orgs/${org}/scim/tokens`, { name: 'theirs' });
    expect(token.status).toBe(201);
    return { org, connection: made.body.id as string, scimToken: token.body.token as string };
  }
  const scimWorks = async (token: string): Promise<boolean> => (await request(t.app).get('/auth/scim/v2/Schemas').set('Authorization', `Bearer ${token}`)).status === 200;
  const enabled = async (owner: Browser, org: string, id: string): Promise<boolean> => (await owner.get(`/auth/orgs/${org}/sso/connections/${id}`)).body.enabled as boolean;

  it('removing the admin from the organization disables what they made; the owner may enable it again', async () => {
    const owner = await new Browser(t.app).login('owen');
    const ada = await new Browser(t.app).login('ada');
    const { org, connection, scimToken } = await adminWithConnection(owner, ada);
    expect(await enabled(owner, org, connection)).toBe(true);
    expect(await scimWorks(scimToken)).toBe(true);
    expect((await owner.delete(`/auth/orgs/${org}/members/${ada.id}`)).status).toBe(200);
    await t.auth.events.flush();
    expect(await enabled(owner, org, connection)).toBe(false);
    expect(await scimWorks(scimToken)).toBe(false);
    const { events } = await t.auth.events.list({ types: ['sso.connection.disabled'] });
    expect(events[0]?.data).toEqual({ org, connection, reason: 'removed' });
    // Re-enabled by the owner, it is the owner's now: another admin's removal leaves it alone.
    expect((await owner.patch(`/auth/orgs/${org}/sso/connections/${connection}`, { enabled: true })).status).toBe(200);
    expect(await enabled(owner, org, connection)).toBe(true);
  });

  it('a ban of the author disables it', async () => {
    const owner = await new Browser(t.app).login('oona');
    const bo = await new Browser(t.app).login('bo');
    const { org, connection, scimToken } = await adminWithConnection(owner, bo);
    const root = await new Browser(t.app).login('root');
    expect((await root.post(`/auth/admin/users/${bo.id}/ban`, { reason: 'abuse' })).status).toBe(200);
    await t.auth.events.flush();
    expect(await enabled(owner, org, connection)).toBe(false);
    expect(await scimWorks(scimToken)).toBe(false);
  });

  it('a password reset of the author disables it, and the reset notice says so', async () => {
    const email = 'author@example.com';
    const { userId } = await activeUserOn(t.app, smtp, email);
    const author = new Browser(t.app);
    author.jar.keep(await request(t.app).post('/auth/accounts/login').send({ user: email, passwd: 'correct horse' }).expect(200));
    author.id = userId;
    const { id: org } = (await author.post('/auth/orgs', { name: 'Reset Co' })).body as { id: string };
    const made = await author.post(`/auth/orgs/${org}/sso/connections`, { kind: 'saml', name: 'mine', metadataXml: idp.metadata });
    expect(made.status).toBe(201);
    const { token: scimToken } = (await author.post(`/auth/orgs/${org}/scim/tokens`, {})).body as { token: string };
    expect(await scimWorks(scimToken)).toBe(true);
    const since = smtp.mails.length;
    await request(t.app).post('/account/password/forgot').send({ Email: email }).expect(202);
    const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(smtp, email, since)).body)?.[1] as string;
    const noticeSince = smtp.mails.length;
    await request(t.app).post('/account/password/reset').send({ Email: email, Code: code, NewPwd: 'battery staple', NewPwdRepeat: 'battery staple' }).expect(200);
    const notice = (await mailTo(smtp, email, noticeSince)).body;
    expect(notice).toContain('1 SSO connection disabled');
    expect(notice).toContain('1 SCIM token revoked');
    expect(await scimWorks(scimToken)).toBe(false);
    const back = new Browser(t.app);
    back.jar.keep(await request(t.app).post('/auth/accounts/login').send({ user: email, passwd: 'battery staple' }).expect(200));
    expect(await enabled(back, org, made.body.id as string)).toBe(false);
  });
});
