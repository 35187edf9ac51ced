import request from 'supertest';
import { activeUser, mailTo, makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

const VICTIM = 'victim@example.com';

describe('account squatting before activation (item 1) and sign-up enumeration (item 11)', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  const signup = (app: Parameters<typeof request>[0], email: string, pwd: string) => request(app).post('/account/signup').send({ Email: email, Pwd: pwd, PwdRepeat: pwd });
  const token = (app: Parameters<typeof request>[0], email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });
  const linkOf = (body: string): string => {
    const url = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(body)![1]!);
    return url.pathname + url.search;
  };

  it("the attacker's pending sign-up is replaced by the owner's; only the owner's mailed code activates, with the owner's password", async () => {
    const { app, accounts } = makeAccountApp(peer, { managers: [VICTIM] });
    let since = peer.mails.length;
    await signup(app, VICTIM, 'attacker-password').expect(202);
    const attackerMail = await mailTo(peer, VICTIM, since);
    expect(attackerMail.body).toMatch(/If you did not sign up, ignore this mail/);

    // The owner signs up too: 202 (today 409), and the pending sign-up becomes the owner's.
    since = peer.mails.length;
    await signup(app, VICTIM, 'owner-password').expect(202);
    const ownerMail = await mailTo(peer, VICTIM, since);
    expect((await accounts.store.list(0, 10)).total).toBe(1);

    // The code mailed for the attacker's sign-up is void; the owner's activates.
    expect((await request(app).get(linkOf(attackerMail.body)).expect(400)).body.Code).toBe(1.0);
    await request(app).get(linkOf(ownerMail.body)).expect(200);
    await token(app, VICTIM, 'attacker-password').expect(401);
    const owner = await token(app, VICTIM, 'owner-password').expect(200);
    expect(owner.body.User.Privilege).toEqual({ manage_user: true });
    // Once activated, no sign-up replaces it.
    expect((await signup(app, VICTIM, 'attacker-password-2').expect(409)).body.Code).toBe(1.5);
    await token(app, VICTIM, 'owner-password').expect(200);
  });

  it('resend mails a code only to whoever knows the pending password, so it never activates a password the clicker did not choose', async () => {
    const { app } = makeAccountApp(peer);
    const before = peer.mails.length;
    await signup(app, 'resend@example.com', 'attacker-password').expect(202);
    await mailTo(peer, 'resend@example.com', before);
    const since = peer.mails.length;
    // The owner, who never chose a password, cannot get a code for the attacker's sign-up.
    expect((await request(app).post('/account/signup/resend').send({ Email: 'resend@example.com' }).expect(400)).body.Code).toBe(1.0);
    await request(app).post('/account/signup/resend').send({ Email: 'resend@example.com', Pwd: 'owner-password' }).expect(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(peer.mails.slice(since).filter((m) => m.to.includes('resend@example.com'))).toHaveLength(0);
    // Signing up again is the owner's way: it replaces the pending sign-up.
    await signup(app, 'resend@example.com', 'owner-password').expect(202);
    const mail = await mailTo(peer, 'resend@example.com', since);
    await request(app).get(linkOf(mail.body)).expect(200);
    await token(app, 'resend@example.com', 'owner-password').expect(200);
    await token(app, 'resend@example.com', 'attacker-password').expect(401);
  });

  it('a code stored without the sign-up it belongs to (written before this fix) no longer activates', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const since = peer.mails.length;
    await signup(app, 'old@example.com', 'old-password').expect(202);
    const link = linkOf((await mailTo(peer, 'old@example.com', since)).body);
    const account = (await accounts.store.getByEmail('old@example.com'))!;
    await accounts.store.update(account.Id, (a) => ({ ...a, ConfirmCodes: { activate: { Hash: a.ConfirmCodes.activate!.Hash, Expires: a.ConfirmCodes.activate!.Expires } } }));
    await request(app).get(link).expect(400);
  });

  it('limits sign-ups per e-mail (a pending sign-up cannot be replaced in a loop)', async () => {
    const { app } = makeAccountApp(peer);
    for (let i = 0; i < 5; i++) await signup(app, ` Loop@Example.com`.replace('L', i % 2 ? 'L' : 'l'), `password-${i}`).expect(202);
    const blocked = await signup(app, 'loop@example.com', 'password-x').expect(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('concealExistingAccounts: sign-up of an activated e-mail answers 202 like a fresh one and mails the owner a notice; nothing changes', async () => {
    const { app, accounts } = makeAccountApp(peer, { concealExistingAccounts: true });
    await activeUser(app, peer, 'known@example.com', 'owner-password');
    const before = await accounts.store.getByEmail('known@example.com');
    const since = peer.mails.length;
    const fresh = await signup(app, 'fresh@example.com', 'password-1').expect(202);
    const existing = await signup(app, 'known@example.com', 'attacker-password').expect(202);
    expect(existing.body).toEqual(fresh.body);
    const notice = await mailTo(peer, 'known@example.com', since);
    expect(notice.body).toMatch(/already has an account/);
    expect(notice.body).not.toMatch(/\/active\//);
    expect(await accounts.store.getByEmail('known@example.com')).toEqual(before);
    await token(app, 'known@example.com', 'owner-password').expect(200);
  });
});
