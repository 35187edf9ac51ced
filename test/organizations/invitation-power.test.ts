import request from 'supertest';
import { EmailSender } from '../../src';
import { accounts } from '../../src/accounts';
import { admin } from '../../src/admin';
import { activeUserOn } from '../admin/account-steps';
import { rootIsAdmin } from '../admin/admin-helpers';
import { mailTo } from '../support/account-app';
import { setClock } from '../support/clock';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, tokenOf, type OrgApp } from './org-helpers';

/**
 * An invitation grants access after the session that sent it is gone, so it follows the credential
 * policy (issue 41, item 3): sending one needs a fresh login, and it holds only while its inviter is
 * a member who may still grant its roles: a removal, a demotion, a reset of the inviter's
 * credentials or a ban makes it void.
 */
describe('an invitation carries its inviter’s power as it is when accepted', () => {
  let smtp: SmtpPeer;
  let t: OrgApp;

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    const accountService = accounts({
      store: 'memory://',
      sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'accounts@app.example', timeout: 5000 }),
      baseUrl: 'http://127.0.0.1:8080/account',
      bcryptRounds: 4,
    });
    t = orgApp(smtp, 'memory://', {
      plugins: [accountService, admin()],
      claimsUpdater: rootIsAdmin,
    });
    t.app.use('/account', accountService.router);
  });
  afterAll(async () => {
    jest.useRealTimers();
    await t.auth.close();
    await smtp.close();
  });

  async function invite(by: Browser, org: string, email: string, role: string): Promise<string> {
    const since = smtp.mails.length;
    const res = await by.post(`/auth/orgs/${org}/invitations`, { email, role });
    expect(res.status).toBe(201);
    return tokenOf((await smtp.nextMail(since)).body);
  }
  const accept = async (name: string, token: string): Promise<request.Response> => (await new Browser(t.app).login(name)).post('/auth/orgs/invitations/accept', { token });
  const pending = async (owner: Browser, org: string): Promise<string[]> => ((await owner.get(`/auth/orgs/${org}/invitations`)).body as Array<{ email: string }>).map((i) => i.email).sort();

  /** An organization of `owner` with `admin` as its admin. */
  async function orgWithAdmin(ownerName: string, adminName: string): Promise<{ owner: Browser; admin: Browser; org: string }> {
    const owner = await new Browser(t.app).login(ownerName);
    const { id: org } = (await owner.post('/auth/orgs', { name: `Org of ${ownerName}` })).body as { id: string };
    const adminBrowser = await new Browser(t.app).login(adminName);
    expect((await adminBrowser.post('/auth/orgs/invitations/accept', { token: await invite(owner, org, `${adminName}@example.com`, 'admin') })).status).toBe(200);
    return { owner, admin: adminBrowser, org };
  }

  it('an admin removed, or demoted, after inviting: the invitations it sent are void and gone from the list', async () => {
    const { owner, admin: ann, org } = await orgWithAdmin('olive', 'ann');
    const asAdmin = await invite(ann, org, 'crony@example.com', 'admin');
    const asMember = await invite(ann, org, 'friend@example.com', 'member');
    expect(await pending(owner, org)).toEqual(['crony@example.com', 'friend@example.com']);
    // Demoted to billing (no invitation:create): both go.
    expect((await owner.patch(`/auth/orgs/${org}/members/${ann.id}`, { role: 'billing' })).status).toBe(200);
    expect(await pending(owner, org)).toEqual([]);
    expect((await accept('crony', asAdmin)).body).toMatchObject({ code: 'invitation_invalid' });
    expect((await accept('friend', asMember)).body).toMatchObject({ code: 'invitation_invalid' });

    // Admin again, invites, then is removed: the invitation is void, and the would-be admin never joins.
    expect((await owner.patch(`/auth/orgs/${org}/members/${ann.id}`, { role: 'admin' })).status).toBe(200);
    const later = await invite(ann, org, 'crony2@example.com', 'admin');
    expect((await owner.delete(`/auth/orgs/${org}/members/${ann.id}`)).status).toBe(200);
    expect(await pending(owner, org)).toEqual([]);
    const refused = await accept('crony2', later);
    expect(refused.body).toMatchObject({ code: 'invitation_invalid' });
    expect(((await owner.get(`/auth/orgs/${org}/members`)).body as Array<{ name: string }>).map((m) => m.name).sort()).toEqual(['olive']);
  });

  it('a ban voids the invitations the banned member sent', async () => {
    const { owner, admin: ben, org } = await orgWithAdmin('opal', 'ben');
    const token = await invite(ben, org, 'pal@example.com', 'member');
    const root = await new Browser(t.app).login('root');
    expect((await root.post(`/auth/admin/users/${ben.id}/ban`, { reason: 'abuse' })).status).toBe(200);
    expect((await accept('pal', token)).body).toMatchObject({ code: 'invitation_invalid' });
    expect(await pending(owner, org)).toEqual([]);
  });

  it('inviting anyone needs a login of the last stepUpMaxAge: a stale session cannot invite even a member', async () => {
    const owner = await new Browser(t.app).login('oscar');
    const { id: org } = (await owner.post('/auth/orgs', { name: 'Stale' })).body as { id: string };
    setClock(Math.floor(Date.now() / 1000) + 11 * 60);
    try {
      const res = await owner.post(`/auth/orgs/${org}/invitations`, { email: 'someone@example.com', role: 'member' });
      expect([res.status, res.body.code]).toEqual([403, 'step_up_required']);
    } finally {
      jest.useRealTimers();
    }
    expect(await pending(owner, org)).toEqual([]);
  });

  it('a password reset of the inviter voids the invitations it sent, and the reset notice says so', async () => {
    const email = 'inviter@example.com';
    const { userId } = await activeUserOn(t.app, smtp, email);
    const inviter = new Browser(t.app);
    inviter.jar.keep(await request(t.app).post('/auth/accounts/login').send({ user: email, passwd: 'correct horse' }).expect(200));
    inviter.id = userId;
    const { id: org } = (await inviter.post('/auth/orgs', { name: 'Reset Co' })).body as { id: string };
    const token = await invite(inviter, org, 'guest@example.com', 'admin');

    const since = smtp.mails.length;
    await request(t.app).post('/account/password/forgot').send({ Email: email }).expect(202);
    const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(smtp, email, since)).body)?.[1] as string;
    const noticeSince = smtp.mails.length;
    await request(t.app).post('/account/password/reset').send({ Email: email, Code: code, NewPwd: 'battery staple', NewPwdRepeat: 'battery staple' }).expect(200);
    expect((await mailTo(smtp, email, noticeSince)).body).toContain('1 pending invitation');
    expect((await accept('guest', token)).body).toMatchObject({ code: 'invitation_invalid' });
  });

  it('its page shows what it offers before anyone accepts: the organization, the role, the address, who sent it; a look uses nothing up', async () => {
    const owner = await new Browser(t.app).login('preview-owner');
    const { id: org } = (await owner.post('/auth/orgs', { name: 'Preview Co' })).body as { id: string };
    const token = await invite(owner, org, 'guest@example.com', 'admin');
    const stranger = await new Browser(t.app).login('stranger');
    const offer = await stranger.post('/auth/orgs/invitations/preview', { token });
    expect(offer.status).toBe(200);
    // A local login has no address: the invitation is not "for" it, and the screen says so.
    expect(offer.body).toEqual({
      org: { name: 'Preview Co', slug: expect.any(String) },
      email: 'guest@example.com',
      forYou: false,
      role: 'admin',
      roles: ['admin'],
      invitedBy: 'preview-owner',
      expires: expect.any(Number),
    });
    expect((await stranger.post('/auth/orgs/invitations/preview', { token })).status).toBe(200);
    expect((await accept('guest', token)).status).toBe(200);
    expect((await stranger.post('/auth/orgs/invitations/preview', { token })).body).toMatchObject({ code: 'invitation_invalid' });
    expect((await stranger.post('/auth/orgs/invitations/preview', { token: 'x'.repeat(43) })).body).toMatchObject({ code: 'invitation_invalid' });
    // Signed out, nothing is shown.
    expect((await request(t.app).post('/auth/orgs/invitations/preview').send({ token })).status).toBe(401);
  });
});
