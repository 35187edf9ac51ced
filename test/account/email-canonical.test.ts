import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { createAccountRouter, createAuth, hashId, loggerFunc, senderFunc } from '../../src';
import { SECRET } from '../support/auth-app';
import { activeUser, makeAccountApp } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';

const SPELLINGS = ['bob@example.com', 'Bob@Example.COM', '  bob@example.com ', 'BOB@EXAMPLE.COM'];
const NFC = 'jos\u00e9@example.com';
const NFD = 'jose\u0301@example.com';

describe('one canonical form for e-mail identities: trim, NFC, lower case (item 4)', () => {
  let peer: SmtpPeer;
  beforeAll(async () => {
    peer = await startSmtpPeer();
  });
  afterAll(() => peer.close());

  const token = (app: express.Express, email: string, password: string) => request(app).post('/account/tokens').send({ grant_type: 'password', email, password });

  it('every spelling reaches the same account; a sign-up in another spelling is the same address (409)', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const { id } = await activeUser(app, peer, 'Bob@Example.COM', 'bob-password');
    for (const email of SPELLINGS) expect((await token(app, email, 'bob-password').expect(200)).body.User.Id).toBe(id);
    expect((await request(app).post('/account/signup').send({ Email: 'BOB@example.com', Pwd: 'password-2', PwdRepeat: 'password-2' }).expect(409)).body.Code).toBe(1.5);
    await activeUser(app, peer, NFD, 'jose-password');
    await token(app, NFC, 'jose-password').expect(200);
    expect((await accounts.store.list(0, 10)).accounts.map((a) => a.Email).sort()).toEqual(['bob@example.com', NFC]);
  });

  it('spellings share one rate-limit bucket', async () => {
    const { app } = makeAccountApp(peer, { lockout: false });
    for (let i = 0; i < 10; i++) await token(app, SPELLINGS[i % SPELLINGS.length]!, 'wrong-password').expect(401);
    await token(app, 'bOb@eXample.com', 'wrong-password').expect(429);
  });

  it('the account bridge gives every spelling one user id and the canonical name', async () => {
    const { app, accounts } = makeAccountApp(peer);
    const { id } = await activeUser(app, peer, 'bridge@example.com', 'bridge-pass');
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    auth.addDirectProvider('accounts', accounts.credentialChecker());
    app.use('/auth', auth.handlers().authRouter);
    for (const user of ['bridge@example.com', 'Bridge@EXAMPLE.com', ' bridge@example.com']) {
      const res = await request(app).post('/auth/accounts/login').send({ user, passwd: 'bridge-pass' }).expect(200);
      expect(res.body).toMatchObject({ id: hashId('accounts', id), name: 'bridge@example.com' });
    }
  });

  it('the verify provider gives every spelling one user id, one recipient and one rate-limit bucket', async () => {
    const sent: Array<{ to: string; token: string }> = [];
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    auth.addVerifyProvider(
      'email',
      '{{.Token}}',
      senderFunc((to, text) => void sent.push({ to, token: text })),
    );
    const app = express().use('/auth', auth.handlers().authRouter);
    for (const address of ['Ver@Example.com', `ver@example.com `, 'VER@EXAMPLE.COM']) {
      await request(app)
        .get(`/auth/email/login?user=v&address=${encodeURIComponent(address)}`)
        .expect(200);
      const res = await request(app)
        .get(`/auth/email/login?token=${sent.at(-1)!.token}`)
        .expect(200);
      expect(res.body).toMatchObject({ id: hashId('email', 'ver@example.com'), email: 'ver@example.com' });
    }
    expect(new Set(sent.map((s) => s.to))).toEqual(new Set(['ver@example.com']));
    // verifyPerAddress allows 5 per hour, whatever the spelling.
    await request(app).get('/auth/email/login?user=v&address=vER@example.com').expect(200);
    await request(app).get('/auth/email/login?user=v&address=VeR@example.com').expect(200);
    await request(app).get('/auth/email/login?user=v&address=ver@EXAMPLE.com').expect(429);
  });

  it('a level store written by authgate 0.1.0 is migrated on open: no account becomes unreachable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authgate-v1-accounts-'));
    await cp(join(__dirname, '../support/fixtures/level-accounts-v1'), dir, { recursive: true });
    const lines: string[] = [];
    const open = () =>
      createAccountRouter({
        store: `level://${dir}`,
        sender: senderFunc(() => undefined),
        baseUrl: 'http://127.0.0.1:8080/account',
        bcryptRounds: 4,
        rateLimits: false,
        logger: loggerFunc((l) => lines.push(l)),
      });
    try {
      const accounts = open();
      const app = express().use('/account', accounts);
      // Bob signed up as Bob@Example.COM (stored as Bob@example.com): every spelling works.
      for (const email of ['bob@example.com', 'Bob@example.com', 'BOB@EXAMPLE.COM']) expect((await token(app, email, 'bob-password-1').expect(200)).body.User.Id).toBe('6f8db8c44c6014fb60390d94');
      await token(app, 'Carol@Example.com', 'carol-password-1').expect(200);
      // Dave@ and dave@ were two accounts; the one spelled canonically keeps the address, the other stays reachable by id.
      expect((await token(app, 'Dave@example.com', 'dave-lower-password').expect(200)).body.User.Id).toBe('3e727ec95a4a3902cd7a427c');
      await token(app, 'dave@example.com', 'dave-upper-password').expect(401);
      expect(await accounts.store.get('96d97f46167e9cb37d9a2d2f')).toMatchObject({ Email: 'Dave@example.com', Approved: true });
      expect(lines.join('\n')).toMatch(/account 96d97f46167e9cb37d9a2d2f has the same canonical e-mail as account 3e727ec95a4a3902cd7a427c/);
      // Erin's pending sign-up is reachable under the canonical address: she can activate it again.
      expect(await accounts.store.getByEmail('erin@example.com')).toMatchObject({ Id: 'ed72a5da0b14923324189562', Approved: false });
      const list = await accounts.store.list(0, 10);
      expect(list.total).toBe(5);
      expect(list.accounts.map((a) => a.Email).sort()).toEqual(['Dave@example.com', 'bob@example.com', 'carol@example.com', 'dave@example.com', 'erin@example.com']);
      await accounts.close();
      // The migration runs once.
      lines.length = 0;
      const again = open();
      await token(express().use('/account', again), 'BOB@example.com', 'bob-password-1').expect(200);
      expect(lines.join('\n')).not.toMatch(/canonical/);
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
