import request from 'supertest';
import { activeUser, makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

describe('password policy', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  const signup = (app: ReturnType<typeof makeAccountApp>['app'], email: string, pwd: string): request.Test => request(app).post('/account/signup').send({ Email: email, Pwd: pwd, PwdRepeat: pwd });

  it('refuses common passwords of the offline list in any case, and sizes outside 8 to 256 characters, storing nothing', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: false });
    for (const pwd of ['password1', 'PASSWORD1', 'qwertyuiop', 'iloveyou', '123456789']) {
      const res = await signup(app, 'common@example.com', pwd).expect(400);
      expect(res.body).toEqual({ Code: 1.4, Message: 'InvalidPwd', Description: 'this password is one of the most common ones; choose another', code: 'invalid_password' });
    }
    const long = await signup(app, 'common@example.com', 'é'.repeat(257)).expect(400);
    expect(long.body.Description).toMatch(/8 to 256 characters/);
    await signup(app, 'common@example.com', 'short').expect(400);
    expect(await accounts.store.getByEmail('common@example.com')).toBeUndefined();
    await signup(app, 'common@example.com', 'glass otter lantern').expect(202);
    await accounts.close();
  });

  it('takes an own check and can turn the list off', async () => {
    const { app, accounts } = makeAccountApp(peer, {
      passwordPolicy: { commonPasswords: false, check: (pwd, email) => (pwd.includes(email.split('@')[0]!) ? 'the password must not contain your name' : undefined) },
    });
    await signup(app, 'otter@example.com', 'password1').expect(202);
    const own = await signup(app, 'lynx@example.com', 'lynx-lynx-lynx').expect(400);
    expect(own.body).toEqual({ Code: 1.4, Message: 'InvalidPwd', Description: 'the password must not contain your name', code: 'invalid_password' });
    await accounts.close();
  });

  it('takes 64 characters in any script whole: no part of a long password stands for it', async () => {
    const { app, accounts } = makeAccountApp(peer, { rateLimits: false, lockout: false });
    const pwd = 'é'.repeat(64); // 128 bytes, past the 72 bcrypt reads
    await activeUser(app, peer, 'long@example.com', pwd);
    const token = (password: string): request.Test => request(app).post('/account/tokens').send({ grant_type: 'password', email: 'long@example.com', password });
    await token(pwd).expect(200);
    await token('é'.repeat(36)).expect(401);
    await token(`${'é'.repeat(63)}e`).expect(401);
    expect((await accounts.store.getByEmail('long@example.com'))?.Pwd).toMatch(/^hmac-sha256\$\$2[aby]\$/);
    await accounts.close();
  });
});
