import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { loggerFunc } from '../../src';
import { createExampleApp, readExampleConfig } from '../../examples/server/app';
import { setCookies } from '../support/cookies';
import { describePostgres, describeRedis, startPostgres, startRedis, type TestServer } from '../support/servers';

const bothServers = describePostgres === describe && describeRedis === describe ? describe : describe.skip;

bothServers('the example on PostgreSQL (DATABASE_URL) and Redis (REDIS_URL): three instances, one deployment', () => {
  let pg: TestServer;
  let redis: TestServer;
  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([pg?.destroy(), redis?.destroy()]);
  });

  it('a login on A works on B and C; a verify link mailed by A is accepted once on B and refused on C; sign-up on A, activation on B, token on C', async () => {
    const lines: string[] = [];
    const env = {
      AUTH_SECRET: 's'.repeat(32),
      DATABASE_URL: `${pg.url}?schema=ex_${randomBytes(4).toString('hex')}`,
      REDIS_URL: `${redis.url}?prefix=ex${randomBytes(4).toString('hex')}:`,
    };
    const instances = [0, 1, 2].map(() =>
      createExampleApp({
        ...readExampleConfig(
          env,
          loggerFunc((l) => lines.push(l)),
        ),
        devAuthPort: 0,
      }),
    );
    const [a, b, c] = instances.map((i) => i.app) as [Express, Express, Express];
    try {
      expect(instances[0]!.auth.options.stateStore.constructor.name).toBe('RedisStateStore');
      const login = await request(a).post('/auth/local/login').send({ user: 'demo', passwd: 'demo-password' }).expect(200);
      const cookies = setCookies(login);
      const cookie = `JWT=${cookies.JWT!.value}; XSRF-TOKEN=${cookies['XSRF-TOKEN']!.value}`;
      for (const app of [b, c]) await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', cookies['XSRF-TOKEN']!.value).expect(200);
      // The avatar stored by A (in PostgreSQL) is served by B with the same ETag.
      const avatar = new URL(login.body.picture as string).pathname;
      expect((await request(b).get(avatar).expect(200)).headers.etag).toBe((await request(c).get(avatar).expect(200)).headers.etag);

      await request(a).get('/auth/email/login?user=reader&address=reader@example.com').expect(200);
      const link = new URL(/(http:\/\/\S+\/auth\/email\/login\?token=\S+)/.exec(lines.join('\n'))![1]!);
      await request(b)
        .get(link.pathname + link.search)
        .expect(200);
      expect(
        (
          await request(c)
            .get(link.pathname + link.search)
            .expect(403)
        ).body.error,
      ).toMatch(/already used/);

      await request(a).post('/account/signup').send({ Email: 'multi@example.com', Pwd: 'multi-password', PwdRepeat: 'multi-password' }).expect(202);
      const activation = new URL(/(http:\/\/\S+\/account\/active\/\S+)/.exec(lines.join('\n'))![1]!);
      await request(b)
        .get(activation.pathname + activation.search)
        .expect(200);
      await request(c).post('/account/tokens').send({ grant_type: 'password', email: 'multi@example.com', password: 'multi-password' }).expect(200);
    } finally {
      await Promise.all(instances.map(async (i) => Promise.all([i.auth.close(), i.accounts.close()])));
    }
  }, 60_000);
});
