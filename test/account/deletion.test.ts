import request from 'supertest';
import { createAuth, hashId, mustGetUser } from '../../src';
import { SECRET } from '../support/auth-app';
import { activeUser, makeAccountApp, bearer } from '../support/account-app';
import { setCookies } from '../support/cookies';
import { describeOnEveryAccountStore } from '../support/account-stores';

describeOnEveryAccountStore('account deletion', (ctx) => {
  it('the owner deletes with his password: tokens, sessions and avatar go, the e-mail can sign up again', async () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, revocationCheck: 'every-request' });
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false, loginSessions: { sessions: auth.sessions, provider: 'accounts', avatars: auth.avatars } });
    auth.addDirectProvider('accounts', a.accounts.credentialChecker());
    a.app.use('/auth', auth.handlers().authRouter);
    a.app.get('/private', auth.middleware().auth, (_req, res) => void res.json({ ok: true }));
    const { id, token } = await activeUser(a.app, ctx.peer, 'leaving@example.com', 'leaving-password');
    const login = setCookies(await request(a.app).post('/auth/accounts/login').send({ user: 'leaving@example.com', passwd: 'leaving-password' }).expect(200));
    const session = (r: request.Test): request.Test => r.set('Cookie', `JWT=${login.JWT?.value}`).set('X-XSRF-TOKEN', login['XSRF-TOKEN']!.value);
    await session(request(a.app).get('/private')).expect(200);
    const avatarId = auth.avatars.avatarId(hashId('accounts', id));
    expect(await auth.options.avatarStore.get(avatarId)).toBeDefined();

    await request(a.app)
      .delete(`/account/profile/${id}`)
      .set(...bearer(token))
      .send({ Pwd: 'wrong-password' })
      .expect(403);
    await request(a.app)
      .delete(`/account/profile/${id}`)
      .set(...bearer(token))
      .send({})
      .expect(400);
    expect(await a.accounts.store.get(id)).toBeDefined();
    await session(request(a.app).get('/private')).expect(200);

    const res = await request(a.app)
      .delete(`/account/profile/${id}`)
      .set(...bearer(token))
      .send({ Pwd: 'leaving-password' })
      .expect(200);
    expect(res.body).toEqual({ Message: 'Account deleted' });
    expect(await a.accounts.store.get(id)).toBeUndefined();
    await request(a.app)
      .get(`/account/profile/${id}/info`)
      .set(...bearer(token))
      .expect(401);
    await session(request(a.app).get('/private')).expect(401);
    await request(a.app).post('/auth/accounts/login').send({ user: 'leaving@example.com', passwd: 'leaving-password' }).expect(403);
    expect(await auth.options.avatarStore.get(avatarId)).toBeUndefined();
    const again = await activeUser(a.app, ctx.peer, 'leaving@example.com', 'returning-password');
    expect(again.id).not.toBe(id);
    await auth.close();
    await a.accounts.close();
  });

  it('another user needs manage_user (403 without it); a manager deletes without a password; bad and unknown ids 4xx', async () => {
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false, managers: ['boss@example.com'] });
    const victim = await activeUser(a.app, ctx.peer, 'victim@example.com', 'victim-password');
    const other = await activeUser(a.app, ctx.peer, 'other@example.com', 'other-password');
    const boss = await activeUser(a.app, ctx.peer, 'boss@example.com', 'boss-password');
    await request(a.app)
      .delete(`/account/profile/${victim.id}`)
      .set(...bearer(other.token))
      .send({ Pwd: 'other-password' })
      .expect(403);
    expect(await a.accounts.store.get(victim.id)).toBeDefined();
    await request(a.app)
      .delete('/account/profile/not-an-id')
      .set(...bearer(boss.token))
      .expect(400);
    await request(a.app)
      .delete(`/account/profile/${'f'.repeat(24)}`)
      .set(...bearer(boss.token))
      .expect(404);
    await request(a.app).delete(`/account/profile/${victim.id}`).send({ Pwd: 'x' }).expect(401);
    await request(a.app)
      .delete(`/account/profile/${victim.id}`)
      .set(...bearer(boss.token))
      .expect(200);
    expect(await a.accounts.store.get(victim.id)).toBeUndefined();
    await request(a.app)
      .get(`/account/profile/${victim.id}/info`)
      .set(...bearer(victim.token))
      .expect(401);
    await a.accounts.close();
  });

  it("'refresh' mode: an unexpired token of a deleted account is never taken for a later account of the same address", async () => {
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET });
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false, loginSessions: { sessions: auth.sessions, provider: 'accounts' } });
    auth.addDirectProvider('accounts', a.accounts.credentialChecker());
    a.app.use('/auth', auth.handlers().authRouter);
    a.app.get('/private', auth.middleware().auth, (req, res) => void res.json(mustGetUser(req)));
    const first = await activeUser(a.app, ctx.peer, 'reused@example.com', 'first-password');
    const old = setCookies(await request(a.app).post('/auth/accounts/login').send({ user: 'reused@example.com', passwd: 'first-password' }).expect(200));
    await request(a.app)
      .delete(`/account/profile/${first.id}`)
      .set(...bearer(first.token))
      .send({ Pwd: 'first-password' })
      .expect(200);
    const second = await activeUser(a.app, ctx.peer, 'reused@example.com', 'second-password');
    const fresh = setCookies(await request(a.app).post('/auth/accounts/login').send({ user: 'reused@example.com', passwd: 'second-password' }).expect(200));
    const who = async (c: typeof old): Promise<unknown> => (await request(a.app).get('/private').set('Cookie', `JWT=${c.JWT?.value}`).set('X-XSRF-TOKEN', c['XSRF-TOKEN']!.value).expect(200)).body.id;
    // The old token still reads as valid until it expires ('refresh' mode), but as the deleted account's user, not the new one's.
    expect(await who(fresh)).toBe(hashId('accounts', second.id));
    expect(await who(old)).toBe(hashId('accounts', first.id));
    expect(hashId('accounts', first.id)).not.toBe(hashId('accounts', second.id));
    await auth.close();
    await a.accounts.close();
  });
});
