import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { getUser, mustGetUser, type AuthOptions } from '../../src';
import { apiKeyOf, apiKeys, isApiKey } from '../../src/api-keys';
import { adminApp, Session } from '../admin/admin-helpers';
import { describeOnEveryCredentialStore } from '../support/credential-stores';
import { eventually } from '../support/eventually';
import { describePostgres, dropSchema, sharedServer, startPostgres } from '../support/servers';

/** The admin test app with the API keys plugin and routes that show who a key acts as. */
function keyApp(options: Partial<AuthOptions> = {}): ReturnType<typeof adminApp> {
  const t = adminApp({ ...options, plugins: [apiKeys({ maxKeysPerUser: 3 }), ...(options.plugins ?? [])] });
  const m = t.auth.middleware();
  t.app.get('/api/me', m.auth, (req, res) => res.json({ user: mustGetUser(req), key: apiKeyOf(req) ?? null }));
  t.app.get('/api/reports', m.scopes('reports:read'), (req, res) => res.json({ id: mustGetUser(req).id }));
  t.app.get('/api/open', m.trace, (req, res) => res.json({ user: getUser(req).user?.id ?? null }));
  return t;
}
const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];

describeOnEveryCredentialStore('API keys over HTTP', (store) => {
  let t: ReturnType<typeof keyApp>;
  beforeEach(() => {
    t = keyApp({ credentialStore: store().uri });
  });
  afterEach(() => t.auth.close());

  it('made once with a fresh login, shown once, accepted by m.auth as its owner, listed by prefix, renamed, deleted', async () => {
    const alice = new Session(t);
    await alice.login('alice');
    const made = await alice.post('/auth/api-keys', { name: 'CI', scopes: ['reports:read'], expiresIn: 3_600_000 });
    expect(made.status).toBe(201);
    const key = made.body.key as string;
    expect(isApiKey(key)).toBe(true);
    expect(key).toMatch(/^agk_[A-Za-z0-9_-]{43}[0-9a-z]{7}$/);
    expect(made.body).toMatchObject({ name: 'CI', prefix: key.slice(0, 10), scopes: ['reports:read'], lastUsed: 0 });
    expect(made.body.expiresAt).toBeGreaterThan(Date.now());
    expect(made.headers['cache-control']).toBe('no-store');

    const me = await request(t.app)
      .get('/api/me')
      .set(...bearer(key))
      .expect(200);
    expect(me.body).toEqual({ user: expect.objectContaining({ id: alice.id, name: 'alice' }), key: { id: made.body.id, scopes: ['reports:read'] } });
    await request(t.app)
      .get('/api/me')
      .set(...bearer(key))
      .expect(200); // from memory now
    await request(t.app)
      .get('/api/reports')
      .set(...bearer(key))
      .expect(200);

    const listed = await alice.get('/auth/api-keys');
    expect(listed.body).toEqual([expect.objectContaining({ id: made.body.id, name: 'CI', prefix: key.slice(0, 10) })]);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect((await t.auth.credentials.list(alice.id)).map((c) => JSON.stringify(c)).join()).not.toContain(key.slice(10));
    await eventually(async () => expect((await alice.get('/auth/api-keys')).body[0].lastUsed).toBeGreaterThan(0));

    expect((await alice.jar.on(request(t.app).patch(`/auth/api-keys/${made.body.id as string}`)).send({ name: 'CI runner' })).body).toMatchObject({ name: 'CI runner' });
    expect((await alice.jar.on(request(t.app).delete(`/auth/api-keys/${made.body.id as string}`))).status).toBe(200);
    const refused = await request(t.app)
      .get('/api/me')
      .set(...bearer(key));
    expect([refused.status, refused.body.code]).toEqual([401, 'token_invalid']);
    expect(
      (
        await request(t.app)
          .get('/api/open')
          .set(...bearer(key))
      ).body,
    ).toEqual({ user: null });
  });

  it('scopes, expiry, a wrong checksum, and a key never reaching the session routes or a step-up', async () => {
    const bob = new Session(t);
    await bob.login('bob');
    const plain = (await bob.post('/auth/api-keys', { name: 'no scopes' })).body.key as string;
    const scoped = await request(t.app)
      .get('/api/reports')
      .set(...bearer(plain));
    expect([scoped.status, scoped.body.code]).toEqual([403, 'scope_required']);
    expect((await bob.get('/api/reports')).status).toBe(200); // a session holds every scope
    const typo = `${plain.slice(0, -1)}${plain.endsWith('a') ? 'b' : 'a'}`;
    expect(
      (
        await request(t.app)
          .get('/api/me')
          .set(...bearer(typo))
      ).status,
    ).toBe(401);
    for (const path of ['/auth/sessions', '/auth/api-keys', '/auth/events', '/auth/admin/users'])
      expect(
        (
          await request(t.app)
            .get(path)
            .set(...bearer(plain))
        ).status,
      ).toBe(401);
    expect(
      (
        await request(t.app)
          .post('/auth/api-keys')
          .set(...bearer(plain))
          .send({ name: 'more' })
      ).status,
    ).toBe(401);
    expect(
      (
        await request(t.app)
          .post('/auth/sessions/revoke-all')
          .set(...bearer(plain))
      ).status,
    ).toBe(401);

    const short = (await bob.post('/auth/api-keys', { name: 'short', expiresIn: 60_000 })).body.key as string;
    await request(t.app)
      .get('/api/me')
      .set(...bearer(short))
      .expect(200);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    try {
      expect(
        (
          await request(t.app)
            .get('/api/me')
            .set(...bearer(short))
        ).status,
      ).toBe(401);
    } finally {
      jest.restoreAllMocks();
    }
    await bob.post('/auth/api-keys', { name: 'third' });
    expect((await bob.post('/auth/api-keys', { name: 'fourth' })).body).toMatchObject({ code: 'limit_reached' });
  });

  it("no route makes, renames or deletes another user's key, whatever the body or query says", async () => {
    const [alice, mallory] = [new Session(t), new Session(t)];
    await alice.login('alice');
    await mallory.login('mallory');
    const aliceKey = (await alice.post('/auth/api-keys', { name: 'mine' })).body as { id: string; key: string };
    const forged = await mallory.jar
      .on(request(t.app).post(`/auth/api-keys?userId=${alice.id}&owner=${alice.id}&user=${alice.id}`))
      .send({ name: 'x', userId: alice.id, owner: alice.id, user: alice.id });
    expect(forged.status).toBe(201);
    expect(
      (
        await request(t.app)
          .get('/api/me')
          .set(...bearer(forged.body.key as string))
      ).body.user.id,
    ).toBe(mallory.id);
    expect((await alice.get('/auth/api-keys')).body).toHaveLength(1);
    expect((await mallory.jar.on(request(t.app).delete(`/auth/api-keys/${aliceKey.id}?userId=${alice.id}`)).send({ userId: alice.id })).status).toBe(404);
    expect((await mallory.jar.on(request(t.app).patch(`/auth/api-keys/${aliceKey.id}`)).send({ name: 'pwned', userId: alice.id })).status).toBe(404);
    await request(t.app)
      .get('/api/me')
      .set(...bearer(aliceKey.key))
      .expect(200);
    expect((await alice.get('/auth/api-keys')).body[0].name).toBe('mine');
  });
});

describe('API keys: bans, a fresh login, bad input, events', () => {
  it('needs a fresh login to make one; refuses bad input; a ban stops its keys at once and an unban lets them work again; events name the kind api_key', async () => {
    const t = keyApp();
    const seen: string[] = [];
    t.auth.events.on('*', (e) => void seen.push(`${e.type}:${String(e.data.kind ?? '')}`));
    try {
      const carl = new Session(t);
      await carl.login('carl');
      const now = Date.now();
      jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60_000);
      try {
        expect((await carl.post('/auth/api-keys', { name: 'late' })).body).toMatchObject({ code: 'step_up_required' });
      } finally {
        jest.restoreAllMocks();
      }
      for (const body of [{}, { name: '' }, { name: 'x', scopes: 'all' }, { name: 'x', scopes: ['a b'] }, { name: 'x', expiresIn: 5 }, { name: 'x', expiresIn: 'soon' }]) {
        expect((await carl.post('/auth/api-keys', body)).status).toBe(400);
      }
      expect((await carl.get('/auth/api-keys')).body).toEqual([]);
      const key = (await carl.post('/auth/api-keys', { name: 'ok' })).body.key as string;
      await request(t.app)
        .get('/api/me')
        .set(...bearer(key))
        .expect(200);
      const root = new Session(t);
      await root.login('root');
      await root.post(`/auth/admin/users/${carl.id}/ban`, { reason: 'x' });
      const banned = await request(t.app)
        .get('/api/me')
        .set(...bearer(key));
      expect([banned.status, banned.body.code]).toEqual([401, 'banned']);
      await root.post(`/auth/admin/users/${carl.id}/unban`);
      await request(t.app)
        .get('/api/me')
        .set(...bearer(key))
        .expect(200);
      await t.auth.events.flush();
      expect(seen).toContain('credential.added:api_key');
    } finally {
      await t.auth.close();
    }
  });
});

const postgres = sharedServer(startPostgres);
describePostgres('API keys on two instances sharing PostgreSQL', () => {
  it('a key deleted on A is refused on B at once, though B had it in memory', async () => {
    const server = await postgres();
    const schema = `ak_${randomBytes(6).toString('hex')}`;
    const uri = `${server.url}?schema=${schema}`;
    const [a, b] = [keyApp({ credentialStore: uri, userStore: uri, stateStore: uri }), keyApp({ credentialStore: uri, userStore: uri, stateStore: uri })];
    try {
      const dora = new Session(a);
      await dora.login('dora');
      const made = (await dora.post('/auth/api-keys', { name: 'shared' })).body as { id: string; key: string };
      await request(b.app)
        .get('/api/me')
        .set(...bearer(made.key))
        .expect(200);
      await request(b.app)
        .get('/api/me')
        .set(...bearer(made.key))
        .expect(200);
      await dora.jar.on(request(a.app).delete(`/auth/api-keys/${made.id}`)).expect(200);
      await eventually(
        async () =>
          expect(
            (
              await request(b.app)
                .get('/api/me')
                .set(...bearer(made.key))
            ).status,
          ).toBe(401),
        3000,
        10,
      );
    } finally {
      await Promise.all([a.auth.close(), b.auth.close()]);
      await dropSchema(server.url, schema);
    }
  });
});
