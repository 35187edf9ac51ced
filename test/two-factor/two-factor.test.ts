import request from 'supertest';
import { createAuth, hashId, senderFunc, type AuthOptions, type DevServer } from '../../src';
import { eventually } from '../support/eventually';
import { makeApp, SECRET, type TestApp } from '../support/auth-app';
import { CookieJar } from '../support/cookie-jar';
import { setCookies } from '../support/cookies';
import { describeOnEveryCredentialStore } from '../support/credential-stores';
import { setClock } from '../support/clock';
import { devAuthorize } from '../support/oauth-flow';
import { awayFromStepEdge, codeNow as code } from '../support/totp-code';

const KEY = 'two-factor-key-0123456789abcdef-0123';

/** Logs `user` in with the first factor; the answer (202 and the pending cookie when the second factor is on). */
async function firstFactor(t: TestApp, jar: CookieJar, user: string): Promise<request.Response> {
  return jar.keep(await jar.on(request(t.app).post('/auth/local/login')).send({ user, passwd: 'pw' }));
}

/** Turns two-factor on for `user` (logged in through `jar`): the secret and the recovery codes. */
async function enable(t: TestApp, jar: CookieJar, user: string): Promise<{ secret: string; recovery: string[] }> {
  expect((await firstFactor(t, jar, user)).status).toBe(200);
  const enrolled = await jar.on(request(t.app).post('/auth/2fa/enroll')).expect(200);
  await awayFromStepEdge();
  const confirmed = await jar
    .on(request(t.app).post('/auth/2fa/confirm'))
    .send({ code: code(enrolled.body.secret as string) })
    .expect(200);
  return { secret: enrolled.body.secret as string, recovery: confirmed.body.recoveryCodes as string[] };
}

describeOnEveryCredentialStore('two-factor (TOTP)', (store) => {
  const opened: TestApp[] = [];
  const app = (extra: Partial<AuthOptions> = {}): TestApp => {
    const t = makeApp({ credentialStore: store().uri, twoFactor: { key: KEY, issuer: 'authgate tests' }, ...extra });
    opened.push(t);
    return t;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((t) => t.auth.close()));
  });

  it('enrols with a QR code, confirms with a first code, keeps the secret sealed, and gives 10 recovery codes', async () => {
    const t = app();
    const jar = new CookieJar();
    await firstFactor(t, jar, 'alice');
    expect((await jar.on(request(t.app).get('/auth/2fa')).expect(200)).body).toEqual({ pending: false, enabled: false, recoveryCodesLeft: 0 });
    const enrolled = await jar.on(request(t.app).post('/auth/2fa/enroll')).expect(200);
    expect(enrolled.headers['cache-control']).toBe('no-store');
    const secret = enrolled.body.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolled.body.uri).toMatch(/^otpauth:\/\/totp\/authgate%20tests:alice\?/);
    expect(enrolled.body.uri).toContain(`secret=${secret}`);
    const [, svg] = /^data:image\/svg\+xml;base64,(.+)$/.exec(enrolled.body.qr as string) ?? [];
    expect(Buffer.from(svg ?? '', 'base64').toString()).toMatch(/^<svg [^>]*width="240" height="240"[^>]*>.*<path /);
    const stored = await t.auth.options.credentialStore.get(`totp:${hashId('local', 'alice')}`);
    expect(JSON.stringify(stored)).not.toContain(secret);

    const wrong = await jar.on(request(t.app).post('/auth/2fa/confirm')).send({ code: '000000' });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'second_factor_wrong']);
    await awayFromStepEdge();
    const confirmed = await jar
      .on(request(t.app).post('/auth/2fa/confirm'))
      .send({ code: code(secret) })
      .expect(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    expect((await jar.on(request(t.app).get('/auth/2fa')).expect(200)).body).toEqual({ pending: false, enabled: true, recoveryCodesLeft: 10 });
    expect(JSON.stringify(await t.auth.options.credentialStore.get(`totp:${hashId('local', 'alice')}`))).not.toContain(confirmed.body.recoveryCodes[0]);
    // On already: enrolling again is refused, the confirmed secret stays.
    await jar.on(request(t.app).post('/auth/2fa/enroll')).expect(409);
    await request(t.app).post('/auth/2fa/enroll').expect(401);
  });

  it('a first factor yields a pending login no middleware accepts; the code completes it once; a replayed code is refused', async () => {
    const t = app();
    const { secret } = await enable(t, new CookieJar(), 'bob');
    const jar = new CookieJar();
    const first = await firstFactor(t, jar, 'bob');
    expect(first.status).toBe(202);
    expect(first.body.status).toBe('second factor required');
    expect(setCookies(first).JWT).toBeUndefined();
    const pendingToken = jar.get('2FA-TOKEN') ?? '';
    expect(setCookies(first)['2FA-TOKEN']?.attrs.httponly).toBe(true);
    await request(t.app).get('/private').set('X-JWT', pendingToken).expect(401);
    await request(t.app).get('/private').set('Cookie', `JWT=${pendingToken}`).expect(401);
    await request(t.app).get('/auth/user').set('X-JWT', pendingToken).expect(401);
    await jar.on(request(t.app).get('/private')).expect(401);
    expect((await jar.on(request(t.app).get('/auth/2fa')).expect(200)).body.pending).toBe(true);

    await jar.on(request(t.app).post('/auth/2fa/verify')).send({ code: '123456' }).expect(403);
    await awayFromStepEdge();
    const now = code(secret, 1);
    const done = jar.keep(await jar.on(request(t.app).post('/auth/2fa/verify')).send({ code: now }).expect(200));
    expect(done.body.id).toBe(hashId('local', 'bob'));
    expect(jar.get('2FA-TOKEN')).toBeUndefined();
    await jar.on(request(t.app).get('/private')).expect(200);

    // The same code in another login: refused (one use per time step), and an older step too.
    const again = new CookieJar();
    expect((await firstFactor(t, again, 'bob')).status).toBe(202);
    await again.on(request(t.app).post('/auth/2fa/verify')).send({ code: now }).expect(403);
    await again
      .on(request(t.app).post('/auth/2fa/verify'))
      .send({ code: code(secret, 0) })
      .expect(403);
    await again.on(request(t.app).get('/private')).expect(401);
  });

  it('takes one step of clock drift either way, not two', async () => {
    const t = app();
    const jar = new CookieJar();
    await firstFactor(t, jar, 'carol');
    const secret = (await jar.on(request(t.app).post('/auth/2fa/enroll')).expect(200)).body.secret as string;
    await awayFromStepEdge();
    await jar
      .on(request(t.app).post('/auth/2fa/confirm'))
      .send({ code: code(secret, -1) })
      .expect(200);
    const late = new CookieJar();
    await firstFactor(t, late, 'carol');
    await awayFromStepEdge();
    await late
      .on(request(t.app).post('/auth/2fa/verify'))
      .send({ code: code(secret, 2) })
      .expect(403);
    await late
      .on(request(t.app).post('/auth/2fa/verify'))
      .send({ code: code(secret, -2) })
      .expect(403);
    await late
      .on(request(t.app).post('/auth/2fa/verify'))
      .send({ code: code(secret, 1) })
      .expect(200);
  });

  it('a recovery code works once; the pending login completes once; bad bodies 400', async () => {
    const t = app();
    const { recovery } = await enable(t, new CookieJar(), 'dave');
    const jar = new CookieJar();
    await firstFactor(t, jar, 'dave');
    const pendingToken = jar.get('2FA-TOKEN') ?? '';
    await jar.on(request(t.app).post('/auth/2fa/verify')).send({}).expect(400);
    await jar
      .on(request(t.app).post('/auth/2fa/verify'))
      .send({ code: 'x'.repeat(40) })
      .expect(400);
    await jar.on(request(t.app).post('/auth/2fa/verify')).send([1]).expect(400);
    await jar.on(request(t.app).post('/auth/2fa/verify')).send({ code: recovery[0]!.toUpperCase() }).expect(200);
    // The same pending cookie again, with another good code: it completed already.
    const copy = new CookieJar();
    copy.set('2FA-TOKEN', pendingToken);
    await copy.on(request(t.app).post('/auth/2fa/verify')).send({ code: recovery[1] }).expect(401);
    const other = new CookieJar();
    await firstFactor(t, other, 'dave');
    await other.on(request(t.app).post('/auth/2fa/verify')).send({ code: recovery[0] }).expect(403);
    other.keep(await other.on(request(t.app).post('/auth/2fa/verify')).send({ code: recovery[1] }).expect(200));
    expect((await other.on(request(t.app).get('/auth/2fa')).expect(200)).body.recoveryCodesLeft).toBe(8);
    await new CookieJar().on(request(t.app).post('/auth/2fa/verify')).send({ code: recovery[2] }).expect(401);
  });

  it('wrong codes get 429 past the limit', async () => {
    const t = app({ rateLimits: { loginPerUser: false, loginPerIp: false } });
    const enabler = new CookieJar();
    const { secret } = await enable(t, enabler, 'erin');
    const jar = new CookieJar();
    await firstFactor(t, jar, 'erin');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await jar.on(request(t.app).post('/auth/2fa/verify')).send({ code: String(100000 + i) })).status);
    expect(statuses.slice(0, 9).every((s) => s === 403)).toBe(true);
    expect(statuses.slice(-1)).toEqual([429]);
    expect(secret).toMatch(/^[A-Z2-7]+$/);
  });

  it('turning it off needs a good code, then logins need none; the owner is told of on and off (credentialNotices)', async () => {
    const notices: string[] = [];
    const t2 = app({ credentialNotices: { sender: senderFunc((to, text) => void notices.push(`${to}|${text}`)), addressOf: (u) => `${u.name}@example.com` } });
    const owner = new CookieJar();
    const second = await enable(t2, owner, 'frank');
    await owner.on(request(t2.app).post('/auth/2fa/disable')).send({ code: '999999' }).expect(403);
    await owner.on(request(t2.app).post('/auth/2fa/disable')).send({ code: second.recovery[0] }).expect(200);
    await eventually(async () => expect(notices.map((n) => /was (turned \w+)/.exec(n)?.[1])).toEqual(['turned on', 'turned off']));
    expect(notices[0]).toMatch(/^frank@example\.com\|Hello frank, on your account two-factor authentication was turned on\./);
    await owner.on(request(t2.app).post('/auth/2fa/disable')).send({ code: second.recovery[1] }).expect(404);
    expect((await firstFactor(t2, new CookieJar(), 'frank')).status).toBe(200);
  });

  it('steps an old login up with a code (POST /2fa/step-up): same session, a fresh auth_time, then credential changes pass', async () => {
    const t2 = app({ stepUpMaxAge: 5 * 60_000 });
    const start = Math.floor(Date.now() / 1000);
    setClock(start);
    try {
      const owner = new CookieJar();
      const { secret, recovery } = await enable(t2, owner, 'ivy');
      const jti = owner.get('XSRF-TOKEN');
      setClock(start + 10 * 60 + (30 - (start % 30)) + 5);
      const stale = await owner.on(request(t2.app).post('/auth/2fa/disable')).send({ code: recovery[1] });
      expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
      // The token alone (X-JWT) cannot step up; a wrong code neither.
      await request(t2.app)
        .post('/auth/2fa/step-up')
        .set('X-JWT', owner.get('JWT') as string)
        .send({ code: code(secret) })
        .expect(403);
      const wrong = await owner.on(request(t2.app).post('/auth/2fa/step-up')).send({ code: '000000' });
      expect([wrong.status, wrong.body.code]).toEqual([403, 'second_factor_wrong']);
      const up = owner.keep(
        await owner
          .on(request(t2.app).post('/auth/2fa/step-up'))
          .send({ code: code(secret) })
          .expect(200),
      );
      expect(up.body).toEqual({ steppedUp: true });
      expect(owner.get('XSRF-TOKEN')).toBe(jti);
      await owner.on(request(t2.app).post('/auth/2fa/disable')).send({ code: recovery[1] }).expect(200);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a user without a second factor cannot step up with a code: step_up_required says to sign in again', async () => {
    const t2 = app({ stepUpMaxAge: 5 * 60_000 });
    const start = Math.floor(Date.now() / 1000);
    setClock(start);
    try {
      const jar = new CookieJar();
      expect((await firstFactor(t2, jar, 'olaf')).status).toBe(200);
      setClock(start + 10 * 60);
      const stale = await jar.on(request(t2.app).post('/auth/2fa/enroll'));
      expect([stale.status, stale.body.code]).toEqual([403, 'step_up_required']);
      const up = await jar.on(request(t2.app).post('/auth/2fa/step-up')).send({ code: '123456' });
      expect([up.status, up.body.code, up.body.error]).toEqual([403, 'step_up_required', expect.stringContaining('sign in again')]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a pending login expires', async () => {
    const t = app({ twoFactor: { key: KEY, pendingMs: 1000 } });
    const { recovery } = await enable(t, new CookieJar(), 'grace');
    const jar = new CookieJar();
    await firstFactor(t, jar, 'grace');
    await new Promise((r) => setTimeout(r, 2100));
    await jar.on(request(t.app).post('/auth/2fa/verify')).send({ code: recovery[0] }).expect(401);
  });
});

describe('two-factor set-up and providers', () => {
  let dev: DevServer;
  afterAll(() => dev?.stop());

  it('is off without the option (404), refuses a short key and the removed providers option, and holds an OAuth2 login too', async () => {
    const off = makeApp();
    await request(off.app).get('/auth/2fa').expect(404);
    await off.auth.close();
    expect(() => createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, twoFactor: { key: 'short' } })).toThrow(/at least 32 characters/);
    expect(() => createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, twoFactor: { key: KEY, providers: 'direct' as 'all' } })).toThrow(/twoFactor.providers is gone/);

    // Two-factor belongs to the account: an OAuth2 login of a user who has it on waits too.
    const t = makeApp({ twoFactor: { key: KEY } }, (auth) => {
      dev = auth.addDevProvider({ port: 0 });
    });
    await dev.start();
    const jar = new CookieJar();
    const start = async (): Promise<request.Response> => {
      const begin = jar.keep(await jar.on(request(t.app).get('/auth/dev/login?from=/after')).expect(302));
      const callback = await devAuthorize(new URL(begin.headers.location as string), 'henry');
      return jar.keep(await jar.on(request(t.app).get(callback.pathname + callback.search)));
    };
    expect((await start()).status).toBe(303);
    await jar.on(request(t.app).post('/auth/2fa/enroll')).expect(200);
    const secret = (await jar.on(request(t.app).post('/auth/2fa/enroll')).expect(200)).body.secret as string;
    await awayFromStepEdge();
    await jar
      .on(request(t.app).post('/auth/2fa/confirm'))
      .send({ code: code(secret) })
      .expect(200);
    const held = await start();
    expect(held.status).toBe(303);
    expect(held.headers.location).toBe('/after');
    expect(jar.get('2FA-TOKEN')).toBeDefined();
    await jar.on(request(t.app).get('/private')).expect(401);
    const done = await jar.on(request(t.app).post('/auth/2fa/verify')).send({ code: code(secret, 1) });
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/after');
    await t.auth.close();
  });
});
