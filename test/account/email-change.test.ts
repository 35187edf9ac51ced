import request from 'supertest';
import { activeUser, mailTo, makeAccountApp, bearer } from '../support/account-app';
import { describeOnEveryAccountStore } from '../support/account-stores';

const codeIn = (body: string): string => /\b([0-9a-f]{32})\b/.exec(body)?.[1] ?? '';

describeOnEveryAccountStore('e-mail change', (ctx) => {
  it('mails a code to the new address and a notice to the old; the address changes only when the code is used, once', async () => {
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false });
    const { id, token } = await activeUser(a.app, ctx.peer, 'old@example.com', 'moving-password');
    await request(a.app)
      .post(`/account/profile/${id}/email`)
      .set(...bearer(token))
      .send({ NewEmail: 'new@example.com', Pwd: 'wrong-password' })
      .expect(403);
    const since = ctx.peer.mails.length;
    await request(a.app)
      .post(`/account/profile/${id}/email`)
      .set(...bearer(token))
      .send({ NewEmail: ' New@Example.com ', Pwd: 'moving-password' })
      .expect(202);
    const code = codeIn((await mailTo(ctx.peer, 'new@example.com', since)).body);
    const notice = await mailTo(ctx.peer, 'old@example.com', since);
    expect(notice.body).toContain('new@example.com');
    expect(codeIn(notice.body)).toBe('');
    expect((await a.accounts.store.get(id))?.Email).toBe('old@example.com');
    await request(a.app)
      .post(`/account/profile/${id}/email/confirm`)
      .set(...bearer(token))
      .send({ Code: 'f'.repeat(32) })
      .expect(400);
    const done = await request(a.app)
      .post(`/account/profile/${id}/email/confirm`)
      .set(...bearer(token))
      .send({ Code: code })
      .expect(200);
    expect(done.body).toMatchObject({ Id: id, Email: 'new@example.com' });
    await request(a.app)
      .post(`/account/profile/${id}/email/confirm`)
      .set(...bearer(token))
      .send({ Code: code })
      .expect(400);
    await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'new@example.com', password: 'moving-password' }).expect(200);
    await request(a.app).post('/account/tokens').send({ grant_type: 'password', email: 'old@example.com', password: 'moving-password' }).expect(401);
    // The old address is free again.
    await activeUser(a.app, ctx.peer, 'old@example.com', 'another-password');
    await a.accounts.close();
  });

  it('two accounts racing to one address: one moves, the other gets 409 1.5; a taken address is refused up front', async () => {
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false });
    const one = await activeUser(a.app, ctx.peer, 'one@example.com', 'one-password');
    const two = await activeUser(a.app, ctx.peer, 'two@example.com', 'two-password');
    await request(a.app)
      .post(`/account/profile/${one.id}/email`)
      .set(...bearer(one.token))
      .send({ NewEmail: 'two@example.com', Pwd: 'one-password' })
      .expect(409);
    const codes: string[] = [];
    for (const [who, pwd] of [
      [one, 'one-password'],
      [two, 'two-password'],
    ] as const) {
      const since = ctx.peer.mails.length;
      await request(a.app)
        .post(`/account/profile/${who.id}/email`)
        .set(...bearer(who.token))
        .send({ NewEmail: 'shared@example.com', Pwd: pwd })
        .expect(202);
      codes.push(codeIn((await mailTo(ctx.peer, 'shared@example.com', since)).body));
    }
    const results = await Promise.all(
      [one, two].map((who, i) =>
        request(a.app)
          .post(`/account/profile/${who.id}/email/confirm`)
          .set(...bearer(who.token))
          .send({ Code: codes[i] }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)?.body).toMatchObject({ Code: 1.5 });
    const emails = [(await a.accounts.store.get(one.id))?.Email, (await a.accounts.store.get(two.id))?.Email].sort();
    expect(emails.filter((e) => e === 'shared@example.com')).toHaveLength(1);
    await a.accounts.close();
  });

  it('a manager may move another user; others may not; bad bodies 4xx with nothing changed', async () => {
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false, managers: ['boss@example.com'] });
    const user = await activeUser(a.app, ctx.peer, 'user@example.com', 'user-password');
    const other = await activeUser(a.app, ctx.peer, 'other@example.com', 'other-password');
    const boss = await activeUser(a.app, ctx.peer, 'boss@example.com', 'boss-password');
    await request(a.app)
      .post(`/account/profile/${user.id}/email`)
      .set(...bearer(other.token))
      .send({ NewEmail: 'x@example.com', Pwd: 'other-password' })
      .expect(403);
    for (const body of [{}, { NewEmail: 'not an address' }, { NewEmail: ['x'] }, { NewEmail: 'user@example.com' }]) {
      const res = await request(a.app)
        .post(`/account/profile/${user.id}/email`)
        .set(...bearer(boss.token))
        .send(body);
      expect(res.status).toBe(400);
    }
    const since = ctx.peer.mails.length;
    await request(a.app)
      .post(`/account/profile/${user.id}/email`)
      .set(...bearer(boss.token))
      .send({ NewEmail: 'managed@example.com' })
      .expect(202);
    const code = codeIn((await mailTo(ctx.peer, 'managed@example.com', since)).body);
    await request(a.app)
      .post(`/account/profile/${user.id}/email/confirm`)
      .set(...bearer(boss.token))
      .send({ Code: code })
      .expect(200);
    expect((await a.accounts.store.get(user.id))?.Email).toBe('managed@example.com');
    await a.accounts.close();
  });

  it('with concealExistingAccounts, a taken address answers as a free one: the old address gets its notice, the taken one a notice and no code', async () => {
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false, concealExistingAccounts: true });
    const mover = await activeUser(a.app, ctx.peer, 'mover@example.com', 'mover-password');
    await activeUser(a.app, ctx.peer, 'taken@example.com', 'taken-password');
    const ask = async (to: string): Promise<{ status: number; body: unknown; toNew: string; toOld: string }> => {
      const since = ctx.peer.mails.length;
      const res = await request(a.app)
        .post(`/account/profile/${mover.id}/email`)
        .set(...bearer(mover.token))
        .send({ NewEmail: to, Pwd: 'mover-password' });
      const [toNew, toOld] = await Promise.all([mailTo(ctx.peer, to, since), mailTo(ctx.peer, 'mover@example.com', since)]);
      return { status: res.status, body: res.body, toNew: toNew.body, toOld: toOld.body };
    };
    const free = await ask('free@example.com');
    const taken = await ask('taken@example.com');
    expect([taken.status, taken.body]).toEqual([free.status, free.body]);
    expect(taken.toOld.replace('taken@', 'free@')).toBe(free.toOld);
    expect(codeIn(free.toNew)).toMatch(/^[0-9a-f]{32}$/);
    expect(codeIn(taken.toNew)).toBe('');
    expect(taken.toNew).toMatch(/already has an account/);
    expect((await a.accounts.store.getByEmail('taken@example.com'))?.Email).toBe('taken@example.com');
    await a.accounts.close();
  });

  it('one code confirmed four times at once: exactly one 200, the others 400, and the move happens once', async () => {
    const a = makeAccountApp(ctx.peer, { store: ctx.store.uri, rateLimits: false });
    const { id, token } = await activeUser(a.app, ctx.peer, 'racer@example.com', 'racer-password');
    const since = ctx.peer.mails.length;
    await request(a.app)
      .post(`/account/profile/${id}/email`)
      .set(...bearer(token))
      .send({ NewEmail: 'raced@example.com', Pwd: 'racer-password' })
      .expect(202);
    const code = codeIn((await mailTo(ctx.peer, 'raced@example.com', since)).body);
    const confirm = () =>
      request(a.app)
        .post(`/account/profile/${id}/email/confirm`)
        .set(...bearer(token))
        .send({ Code: code });
    const results = await Promise.all([confirm(), confirm(), confirm(), confirm()]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    expect((await a.accounts.store.get(id))?.Email).toBe('raced@example.com');
    await a.accounts.close();
  });
});
