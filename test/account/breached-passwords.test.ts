import { createHash } from 'node:crypto';
import request from 'supertest';
import { AuthError, breachedPasswordCheck, loggerFunc } from '../../src';
import { activeUser, bearer, mailTo, makeAccountApp } from '../support/account-app';
import { startRangeApiPeer, type RangeApiPeer } from '../support/range-api-peer';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

const BREACHED = 'monkey-banana-77';
const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex').toUpperCase();

describe('breached passwords (a k-anonymity range API)', () => {
  let peer: SmtpPeer;
  let range: RangeApiPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
    range = await startRangeApiPeer({ [BREACHED]: 12, 'seen-only-twice': 2 });
  });
  afterAll(async () => {
    await peer.close();
    await range.close();
  });
  beforeEach(() => {
    range.mode = 'ok';
    range.requests.length = 0;
  });

  const signup = (app: ReturnType<typeof makeAccountApp>['app'], email: string, pwd: string): request.Test => request(app).post('/account/signup').send({ Email: email, Pwd: pwd, PwdRepeat: pwd });

  it('refuses a breached password at sign-up, password change and reset, sending only 5 characters of its SHA-1', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: false, lockout: false, passwordPolicy: { breached: { url: range.url } } });
    const refused = await signup(app, 'breach@example.com', BREACHED).expect(400);
    expect(refused.body).toEqual({ Code: 1.4, Message: 'PwdBreached', Description: 'this password appears in a list of breached passwords; choose another', code: 'password_breached' });
    expect(await accounts.store.getByEmail('breach@example.com')).toBeUndefined();
    // What left the process: the prefix, asked with padding; never the password or the rest of its hash.
    expect(range.requests).toEqual([{ path: `/range/${sha1(BREACHED).slice(0, 5)}`, padding: 'true' }]);

    const { id, token } = await activeUser(app, peer, 'breach@example.com', 'a fine long passphrase');
    const change = await request(app)
      .post(`/account/profile/${id}/change-password`)
      .set(...bearer(token))
      .send({ Pwd: 'a fine long passphrase', NewPwd: BREACHED, NewPwdRepeat: BREACHED })
      .expect(400);
    expect(change.body.Message).toBe('PwdBreached');
    const since = peer.mails.length;
    await request(app).post('/account/password/forgot').send({ Email: 'breach@example.com' }).expect(202);
    const code = /\b([0-9a-f]{32})\b/.exec((await mailTo(peer, 'breach@example.com', since)).body)?.[1];
    const reset = await request(app).post('/account/password/reset').send({ Email: 'breach@example.com', Code: code, NewPwd: BREACHED, NewPwdRepeat: BREACHED }).expect(400);
    expect(reset.body.Message).toBe('PwdBreached');
    // Nothing changed: the old password still works.
    await request(app).post('/account/tokens').send({ grant_type: 'password', email: 'breach@example.com', password: 'a fine long passphrase' }).expect(200);
    for (const r of range.requests) expect(r.path).toMatch(/^\/range\/[0-9A-F]{5}$/);
    await accounts.close();
  });

  it('accepts passwords the API does not know, and those seen fewer times than minCount', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: false, passwordPolicy: { breached: { url: range.url, minCount: 5 } } });
    await signup(app, 'fresh@example.com', 'no breach has this one').expect(202);
    await signup(app, 'twice@example.com', 'seen-only-twice').expect(202);
    await signup(app, 'many@example.com', BREACHED).expect(400);
    await accounts.close();
  });

  it('fails open by default when the API is down, slow or answers nonsense, and says so in the log without the prefix', async () => {
    const lines: string[] = [];
    const { app, accounts } = makeAccountApp(peer, { rateLimits: false, logger: loggerFunc((l) => lines.push(l)), passwordPolicy: { breached: { url: range.url, timeoutMs: 300 } } });
    for (const [i, mode] of (['slow', 'error', 'garbage'] as const).entries()) {
      range.mode = mode;
      await signup(app, `open${i}@example.com`, BREACHED).expect(202);
    }
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toMatch(/breached-password check: the range API at 127\.0\.0\.1:\d+ did not answer .*accepted \(failOpen\)/);
      expect(line).not.toContain(sha1(BREACHED).slice(0, 5));
    }
    await accounts.close();
  });

  it('with failOpen: false refuses the change with 503 while the API cannot be asked, storing nothing', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: false, passwordPolicy: { breached: { url: range.url, failOpen: false, timeoutMs: 300 } } });
    range.mode = 'error';
    const res = await signup(app, 'closed@example.com', 'no breach has this one').expect(503);
    expect(res.body.Message).toBe('Unavailable');
    expect(await accounts.store.getByEmail('closed@example.com')).toBeUndefined();
    range.mode = 'ok';
    await signup(app, 'closed@example.com', 'no breach has this one').expect(202);
    await accounts.close();
  });

  it('is a function of its own for apps that set passwords themselves; bad options fail at start-up', async () => {
    const check = breachedPasswordCheck({ url: range.url });
    await expect(check(BREACHED)).rejects.toMatchObject({ status: 400, reason: 'password_breached' });
    await expect(check('no breach has this one')).resolves.toBeUndefined();
    expect(() => breachedPasswordCheck({ url: 'ftp://mirror/range/' })).toThrow(AuthError);
    expect(() => breachedPasswordCheck({ url: 'not a url' })).toThrow(/url/);
    expect(() => breachedPasswordCheck({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => breachedPasswordCheck({ minCount: 0 })).toThrow(/minCount/);
    expect(() => makeAccountApp(peer, { passwordPolicy: { breached: { url: 'nope' } } })).toThrow(/breached passwords/);
  });
});
