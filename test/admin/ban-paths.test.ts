import request from 'supertest';
import { EmailSender, hashId, senderFunc, type DevServer } from '../../src';
import { accounts } from '../../src/accounts';
import { adminApp, Session } from './admin-helpers';
import { CookieJar } from '../support/cookie-jar';
import { callback, devAuthorize, startLogin } from '../support/oauth-flow';
import { followToApp, startOidcPeer, type OidcPeer } from '../support/oidc-peer';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { activeUserOn } from './account-steps';

const APP = 'http://localhost:8080';

/** One app with every kind of login, the admin plugin and the account service; a ban must stop each of them. */
describe('a banned user gets no session through any login path', () => {
  let smtp: SmtpPeer;
  let peer: OidcPeer;
  let dev: DevServer;
  let t: ReturnType<typeof adminApp>;
  const mails: Array<{ to: string; text: string }> = [];
  let root: Session;

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    peer = await startOidcPeer([`${APP}/auth/oidc/callback`], 'olga');
    const accountService = accounts({
      store: 'memory://',
      sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'accounts@app.example', timeout: 5000 }),
      baseUrl: `${APP}/account`,
      bcryptRounds: 4,
    });
    t = adminApp({ url: APP, plugins: [accountService] }, {}, (auth) => {
      dev = auth.addDevProvider({ port: 0 });
      auth.addOidcProvider('oidc', { issuer: peer.issuer, clientId: peer.clientId, clientSecret: peer.clientSecret });
      auth.addVerifyProvider(
        'email',
        'token {{.Token}} ',
        senderFunc((to, text) => void mails.push({ to, text })),
      );
      auth.addPasskeyProvider('passkey', { userIdOf: (name) => hashId('local', name) });
    });
    t.app.use('/account', accountService.router);
    await dev.start();
    root = new Session(t);
    await root.login('root');
  }, 60_000);
  afterAll(async () => {
    await t.auth.close();
    await dev.stop();
    await peer.stop();
    await smtp.close();
  });

  const ban = async (id: string): Promise<void> => {
    expect((await root.post(`/auth/admin/users/${encodeURIComponent(id)}/ban`, { reason: 'test' })).status).toBe(200);
  };
  const expectBanned = (res: request.Response): void => {
    expect([res.status, res.body.code]).toEqual([403, 'banned']);
    expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/JWT=[^;]+\./);
  };

  it('direct login', async () => {
    const s = new Session(t);
    await s.login('dora');
    await ban(s.id);
    expectBanned(await new Session(t).login('dora', 403));
  });

  it('OAuth2 (the dev server)', async () => {
    const oauth = async (): Promise<request.Response> => {
      const { location, handshake } = await startLogin(t.app, 'dev');
      return callback(t.app, await devAuthorize(location, 'otto'), handshake);
    };
    const first = await oauth();
    expect(first.status).toBe(200);
    await ban(first.body.id as string);
    expectBanned(await oauth());
  });

  it('OpenID Connect (oidc-provider)', async () => {
    const oidc = async (): Promise<request.Response> => {
      const { location, handshake } = await startLogin(t.app, 'oidc');
      return callback(t.app, await followToApp(location, APP), handshake);
    };
    const first = await oidc();
    expect(first.status).toBe(200);
    await ban(first.body.id as string);
    expectBanned(await oidc());
  });

  it('e-mail link', async () => {
    const link = async (): Promise<request.Response> => {
      const since = mails.length;
      await request(t.app).get('/auth/email/login?user=erin&address=erin@example.com').expect(200);
      const token = /token (\S+) /.exec(mails[since]?.text ?? '')?.[1] ?? '';
      return request(t.app).get(`/auth/email/login?token=${token}`);
    };
    const first = await link();
    expect(first.status).toBe(200);
    await ban(first.body.id as string);
    expectBanned(await link());
  });

  it('passkey', async () => {
    const owner = new Session(t);
    await owner.login('paula');
    const soft = new SoftAuthenticator(APP);
    const options = await owner.post('/auth/passkey/register', {});
    expect((await owner.post('/auth/passkey/register', { response: soft.create(options.body) })).status).toBe(200);
    await ban(owner.id);
    const browser = new CookieJar();
    const challenge = browser.keep(await browser.on(request(t.app).post('/auth/passkey/login')).send({}).expect(200));
    expectBanned(browser.keep(await browser.on(request(t.app).post('/auth/passkey/login')).send({ response: soft.get(challenge.body) })));
  });

  it('account password login and /account/tokens; its access tokens stop working', async () => {
    const { token, userId } = await activeUserOn(t.app, smtp, 'acc@example.com');
    await request(t.app)
      .get('/account/profile')
      .set('Authorization', `Bearer ${token}`)
      .expect((res) => expect(res.status).toBeLessThan(500));
    await ban(userId);
    expectBanned(await request(t.app).post('/auth/accounts/login').send({ user: 'acc@example.com', passwd: 'correct horse' }));
    const tokens = await request(t.app).post('/account/tokens').send({ grant_type: 'password', email: 'acc@example.com', password: 'correct horse' });
    expect(tokens.status).toBe(403);
    expect(tokens.body.Description).toMatch(/banned/);
    expect((await request(t.app).get('/account/profiles').set('Authorization', `Bearer ${token}`)).status).toBe(403);
  });
});
