import request from 'supertest';
import { login, makeApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { totpCode } from '../support/totp-code';
import { setClock } from '../support/clock';

describe('the user directory records completed logins', () => {
  it('a direct login creates the user, a second one updates its last login; a refused login records nothing', async () => {
    const { app, auth } = makeApp();
    await request(app).post('/auth/local/login').send({ user: 'mallory', passwd: 'bad' }).expect(403);
    expect((await auth.users.list()).users).toEqual([]);
    const before = Date.now();
    const { body } = await login(app, 'alice');
    const id = body.id as string;
    const first = await auth.users.get(id);
    expect(first).toMatchObject({ id, name: 'alice', status: 'active', logins: [{ provider: 'local', id }] });
    expect(first?.created).toBeGreaterThanOrEqual(before);
    // Within the minute nothing is written (lastLogin is kept to the minute); a minute later it is.
    await login(app, 'alice');
    expect(await auth.users.get(id)).toEqual(first);
    setClock(Math.floor(Date.now() / 1000) + 61);
    await login(app, 'alice');
    jest.useRealTimers();
    const second = await auth.users.get(id);
    expect(second?.created).toBe(first?.created);
    expect(second?.lastLogin).toBeGreaterThanOrEqual((first?.lastLogin as number) + 60_000);
    expect((await auth.users.list({ query: 'ALI' })).users.map((u) => u.id)).toEqual([id]);
    await auth.close();
  });

  it('a login that waits for its second factor is recorded only once the second factor came', async () => {
    const { app, auth } = makeApp({ twoFactor: { key: 'k'.repeat(32) } });
    const { cookie, xsrf, body } = await login(app, 'bob');
    const id = body.id as string;
    await auth.users.delete(id);
    const enrolled = await request(app).post('/auth/2fa/enroll').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200);
    await request(app)
      .post('/auth/2fa/confirm')
      .set('Cookie', cookie)
      .set('X-XSRF-TOKEN', xsrf)
      .send({ code: totpCode(enrolled.body.secret as string, Date.now() / 1000) })
      .expect(200);
    const held = await request(app).post('/auth/local/login').send({ user: 'bob', passwd: 'pw' }).expect(202);
    expect(await auth.users.get(id)).toBeUndefined();
    const pending = setCookies(held)['2FA-TOKEN']?.value as string;
    await request(app)
      .post('/auth/2fa/verify')
      .set('Cookie', `2FA-TOKEN=${pending}`)
      .send({ code: totpCode(enrolled.body.secret as string, Date.now() / 1000 + 30) })
      .expect(200);
    expect(await auth.users.get(id)).toMatchObject({ id, name: 'bob', logins: [{ provider: 'local', id }] });
    await auth.close();
  });
});
