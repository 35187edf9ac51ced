import request from 'supertest';
import { hashId, type AuthOptions } from '../../src';
import { makeApp, type TestApp } from '../support/auth-app';
import { CookieJar } from '../support/cookie-jar';
import { describeOnEveryCredentialStore } from '../support/credential-stores';
import { SoftAuthenticator } from '../support/soft-authenticator';
import { totpCode } from '../support/totp-code';

const URL_ = 'http://localhost:8080';

async function logIn(t: TestApp, jar: CookieJar, user: string): Promise<void> {
  jar.keep(await jar.on(request(t.app).post('/auth/local/login')).send({ user, passwd: 'pw' }).expect(200));
}

/** Registers a passkey of the logged-in user of `jar` on `soft`; the stored view. */
async function register(t: TestApp, jar: CookieJar, soft: SoftAuthenticator, label?: string): Promise<Record<string, unknown>> {
  const options = jar.keep(await jar.on(request(t.app).post('/auth/passkey/register')).send({}).expect(200));
  const done = jar.keep(
    await jar
      .on(request(t.app).post('/auth/passkey/register'))
      .send({ response: soft.create(options.body), ...(label ? { label } : {}) })
      .expect(200),
  );
  return done.body as Record<string, unknown>;
}

/** Asks for login options in `jar`; the options. */
async function loginOptions(t: TestApp, jar: CookieJar, body: Record<string, unknown> = {}): Promise<{ challenge: string; rpId: string; allowCredentials?: Array<{ id: string }> }> {
  return jar.keep(await jar.on(request(t.app).post('/auth/passkey/login')).send(body).expect(200)).body;
}

async function answer(t: TestApp, jar: CookieJar, response: unknown): Promise<request.Response> {
  return jar.keep(await jar.on(request(t.app).post('/auth/passkey/login')).send({ response }));
}

describeOnEveryCredentialStore('passkeys (WebAuthn)', (store) => {
  const opened: TestApp[] = [];
  const app = (extra: Partial<AuthOptions> = {}): TestApp => {
    const t = makeApp({ url: URL_, credentialStore: store().uri, ...extra }, (auth) => {
      auth.addPasskeyProvider('passkey', { userIdOf: (name) => hashId('local', name) });
    });
    opened.push(t);
    return t;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((t) => t.auth.close()));
  });

  it('registers a passkey for a logged-in user and logs in with it, discoverable or by user name', async () => {
    const t = app();
    const soft = new SoftAuthenticator(URL_);
    const owner = new CookieJar();
    await logIn(t, owner, 'alice');
    const options = await owner.on(request(t.app).post('/auth/passkey/register')).send({}).expect(200);
    expect(options.body.rp).toEqual({ name: 'localhost:8080', id: 'localhost' });
    expect(options.body.authenticatorSelection.residentKey).toBe('required');
    expect(options.headers['set-cookie']?.[0]).toMatch(/^PASSKEY-TOKEN=.*HttpOnly/);
    owner.keep(options);
    const made = owner.keep(
      await owner
        .on(request(t.app).post('/auth/passkey/register'))
        .send({ response: soft.create(options.body), label: 'laptop' })
        .expect(200),
    );
    expect(made.body).toMatchObject({ id: soft.credentials[0]!.id, label: 'laptop', lastUsed: 0, transports: ['internal'] });
    const listed = await owner.on(request(t.app).get('/auth/passkey/credentials')).expect(200);
    expect(listed.body).toEqual([made.body]);

    const browser = new CookieJar();
    const login = await loginOptions(t, browser);
    expect(login.rpId).toBe('localhost');
    expect(login.allowCredentials).toEqual([]);
    const res = await answer(t, browser, soft.get(login));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: hashId('local', 'alice'), name: 'alice' });
    expect(browser.get('PASSKEY-TOKEN')).toBeUndefined();
    await browser.on(request(t.app).get('/private')).expect(200);
    expect((await t.auth.sessions.list(hashId('local', 'alice'))).map((s) => s.provider).sort()).toEqual(['local', 'passkey']);
    expect((await t.auth.options.credentialStore.get(made.body.id as string))?.lastUsed).toBeGreaterThan(0);

    const byName = new CookieJar();
    expect((await loginOptions(t, byName, { user: 'alice' })).allowCredentials?.map((c) => c.id)).toEqual([made.body.id]);
    // An unknown name (or one without passkeys) gets stand-in ids shaped like real ones, the same each time: no enumeration.
    const nobody = (await loginOptions(t, byName, { user: 'nobody' })).allowCredentials?.map((c) => c.id) ?? [];
    expect(nobody.length).toBeGreaterThanOrEqual(1);
    for (const id of nobody) expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await loginOptions(t, byName, { user: 'Nobody' })).allowCredentials?.map((c) => c.id)).toEqual(nobody);
    expect((await loginOptions(t, byName, { user: 'somebody-else' })).allowCredentials?.map((c) => c.id)).not.toEqual(nobody);
    // Registering the same passkey again is excluded by the options and refused by the server.
    const again = await owner.on(request(t.app).post('/auth/passkey/register')).send({}).expect(200);
    expect(again.body.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([made.body.id]);
  });

  it('refuses a replayed answer, a used challenge, a counter that went back, a wrong origin and a foreign passkey', async () => {
    const t = app();
    const soft = new SoftAuthenticator(URL_);
    const owner = new CookieJar();
    await logIn(t, owner, 'bob');
    const { id } = await register(t, owner, soft);
    const counterOf = async (): Promise<unknown> => (await t.auth.options.credentialStore.get(id as string))?.data.counter;

    const first = new CookieJar();
    const opts = await loginOptions(t, first);
    const cookie = first.get('PASSKEY-TOKEN') ?? '';
    const good = soft.get(opts);
    expect((await answer(t, first, good)).status).toBe(200);
    // The same answer again, with the same challenge cookie: the challenge is used up.
    const replay = new CookieJar();
    replay.set('PASSKEY-TOKEN', cookie);
    expect((await answer(t, replay, good)).status).toBe(403);
    replay.set('PASSKEY-TOKEN', cookie);
    expect((await answer(t, replay, soft.get(opts))).body.error).toMatch(/used already/);
    // The same answer with a fresh challenge: it signed another one.
    const fresh = new CookieJar();
    await loginOptions(t, fresh);
    expect((await answer(t, fresh, good)).status).toBe(403);
    expect(await counterOf()).toBe(1);

    // Two answers made in order, sent in the other order: the older counter is refused.
    const a = new CookieJar();
    const b = new CookieJar();
    const older = soft.get(await loginOptions(t, a));
    const newer = soft.get(await loginOptions(t, b));
    expect((await answer(t, b, newer)).status).toBe(200);
    const back = await answer(t, a, older);
    expect(back.status).toBe(403);
    const counted = await counterOf();
    expect(counted).toBe(soft.credentials[0]!.counter);
    await a.on(request(t.app).get('/private')).expect(401);

    const evil = new CookieJar();
    const wrongOrigin = await answer(t, evil, soft.get(await loginOptions(t, evil), 'http://evil.example'));
    expect(wrongOrigin.status).toBe(403);
    expect(wrongOrigin.body.error).toMatch(/origin/i);
    const stranger = new SoftAuthenticator(URL_);
    stranger.create({ challenge: 'x', rp: { id: 'localhost' }, user: { id: 'mallory' } });
    const foreign = new CookieJar();
    const unknown = await answer(t, foreign, stranger.get(await loginOptions(t, foreign)));
    expect(unknown.status).toBe(403);
    expect(unknown.body.error).toMatch(/not registered/);
    await foreign.on(request(t.app).get('/private')).expect(401);
    expect(await counterOf()).toBe(counted);
  });

  it('lists, renames and deletes only the own passkeys; a ceremony of another user is refused', async () => {
    const t = app();
    const soft = new SoftAuthenticator(URL_);
    const carol = new CookieJar();
    await logIn(t, carol, 'carol');
    const { id } = await register(t, carol, soft);
    const dave = new CookieJar();
    await logIn(t, dave, 'dave');
    await dave.on(request(t.app).get('/auth/passkey/credentials')).expect(200, []);
    await dave
      .on(request(t.app).patch(`/auth/passkey/credentials/${id}`))
      .send({ label: 'mine now' })
      .expect(404);
    await dave.on(request(t.app).delete(`/auth/passkey/credentials/${id}`)).expect(404);
    await carol
      .on(request(t.app).patch(`/auth/passkey/credentials/${id}`))
      .send({ label: '' })
      .expect(400);
    await carol
      .on(request(t.app).patch(`/auth/passkey/credentials/${id}`))
      .send({ label: 'x'.repeat(65) })
      .expect(400);
    await carol.on(request(t.app).delete('/auth/passkey/credentials')).expect(400);
    const renamed = await carol
      .on(request(t.app).patch(`/auth/passkey/credentials/${id}`))
      .send({ label: 'phone' })
      .expect(200);
    expect(renamed.body.label).toBe('phone');
    await request(t.app).get('/auth/passkey/credentials').expect(401);

    // Dave finishing Carol's registration ceremony (her challenge cookie) is refused.
    const options = carol.keep(await carol.on(request(t.app).post('/auth/passkey/register')).send({}).expect(200));
    dave.set('PASSKEY-TOKEN', carol.get('PASSKEY-TOKEN') ?? '');
    await dave
      .on(request(t.app).post('/auth/passkey/register'))
      .send({ response: new SoftAuthenticator(URL_).create(options.body) })
      .expect(403);
    expect(await t.auth.options.credentialStore.list(hashId('local', 'dave'))).toEqual([]);

    await carol.on(request(t.app).delete(`/auth/passkey/credentials/${id}`)).expect(200);
    const gone = new CookieJar();
    expect((await answer(t, gone, soft.get(await loginOptions(t, gone)))).status).toBe(403);
  });

  it('answers malformed bodies with 400 and wrong methods with 405, storing nothing', async () => {
    const t = app();
    const jar = new CookieJar();
    await loginOptions(t, jar);
    for (const response of [
      'x',
      1,
      null,
      [],
      {},
      { id: '!!', type: 'public-key', response: {} },
      { id: 'abc', type: 'other', response: {} },
      { id: 'abc', type: 'public-key', response: { clientDataJSON: 1 } },
    ]) {
      const res = await jar.on(request(t.app).post('/auth/passkey/login')).send({ response });
      expect([400, 403]).toContain(res.status);
      expect(res.body.error).toBeDefined();
    }
    await jar.on(request(t.app).post('/auth/passkey/login')).send([1]).expect(400);
    const get = await request(t.app).get('/auth/passkey/login').expect(405);
    expect(get.headers.allow).toBe('POST');
    await request(t.app).post('/auth/passkey/register').send({}).expect(401);
    await request(t.app).put('/auth/passkey/credentials').expect(405);
    await request(t.app).post('/auth/passkey/nothing').expect(404);
    const owner = new CookieJar();
    await logIn(t, owner, 'erin');
    await owner
      .on(request(t.app).post('/auth/passkey/register'))
      .send({ response: { id: 'abc', type: 'public-key', response: { clientDataJSON: 'x' } } })
      .expect(400);
    await owner
      .on(request(t.app).post('/auth/passkey/register'))
      .send({ response: { id: 'abc', type: 'public-key', response: { clientDataJSON: 'x', attestationObject: 'y' } } })
      .expect(403);
    expect(await t.auth.options.credentialStore.list(hashId('local', 'erin'))).toEqual([]);
    const script = await request(t.app).get('/auth/passkey/client.js').expect(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.text).toContain('SimpleWebAuthnBrowser');
  });

  it('a passkey login with a verified user needs no second factor; one without user verification waits for it', async () => {
    const t = app({ twoFactor: { key: 'two-factor-key-0123456789abcdef-0123', providers: 'all' } });
    const soft = new SoftAuthenticator(URL_);
    const owner = new CookieJar();
    await logIn(t, owner, 'frank');
    await register(t, owner, soft);
    const browser = new CookieJar();
    const res = await answer(t, browser, soft.get(await loginOptions(t, browser)));
    expect(res.status).toBe(200);
    expect(browser.get('2FA-TOKEN')).toBeUndefined();

    // With two-factor on, a passkey that did not verify the user (presence only) is one factor.
    await owner.on(request(t.app).post('/auth/2fa/enroll')).expect(200);
    const enrolled = await owner.on(request(t.app).post('/auth/2fa/enroll')).expect(200);
    const now = Math.floor(Date.now() / 1000);
    await owner
      .on(request(t.app).post('/auth/2fa/confirm'))
      .send({ code: totpCode(enrolled.body.secret as string, now) })
      .expect(200);
    soft.userVerified = false;
    const presence = new CookieJar();
    const held = await answer(t, presence, soft.get(await loginOptions(t, presence)));
    expect(held.status).toBe(202);
    expect(presence.get('2FA-TOKEN')).toBeDefined();
    expect(presence.get('JWT')).toBeUndefined();
    soft.userVerified = true;
    const verified = new CookieJar();
    expect((await answer(t, verified, soft.get(await loginOptions(t, verified)))).status).toBe(200);
  });
});
