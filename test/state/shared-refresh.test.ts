import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { SECRET, makeApp } from '../support/auth-app';
import { setCookies } from '../support/cookies';
import { describePostgres, describeRedis, sharedServer, startPostgres, startRedis, type TestServer } from '../support/servers';

/** Three instances sharing one state store get the same expired cookie at once, five requests each. */
async function refreshOnceAcrossInstances(stateStore: string): Promise<void> {
  let updates = 0;
  const instances = Array.from({ length: 3 }, () =>
    makeApp({
      stateStore,
      claimsUpdater: (claims) => {
        updates++;
        return claims;
      },
    }),
  );
  try {
    const now = Math.floor(Date.now() / 1000);
    const user = { name: 'shared', id: 'local_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', picture: '' };
    const expired = jwt.sign({ aud: 'authgate', exp: now - 5, iat: now - 900, jti: 'shared-jti', user, auth_provider: { name: 'local' } }, SECRET, { algorithm: 'HS256' });
    const responses = await Promise.all(
      instances.flatMap(({ app }) => Array.from({ length: 5 }, () => request(app).get('/private').set('Cookie', `JWT=${expired}`).set('X-XSRF-TOKEN', 'shared-jti'))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(15).fill(200));
    expect(new Set(responses.map((r) => setCookies(r).JWT?.value)).size).toBe(1);
    expect(updates).toBe(1);
  } finally {
    await Promise.all(instances.map(({ auth }) => auth.close()));
  }
}

const redis = sharedServer(startRedis);
describeRedis('refresh across instances sharing Redis', () => {
  it('an expired cookie sent to three instances at once is refreshed once (one claims-updater call), all get the same new token', async () => {
    const server: TestServer = await redis();
    await refreshOnceAcrossInstances(`${server.url}?prefix=r${randomBytes(4).toString('hex')}:`);
  });
});

const postgres = sharedServer(startPostgres);
describePostgres('refresh across instances sharing PostgreSQL', () => {
  it('an expired cookie sent to three instances at once is refreshed once', async () => {
    const server: TestServer = await postgres();
    await refreshOnceAcrossInstances(`${server.url}?schema=r_${randomBytes(4).toString('hex')}`);
  });
});

describe('a refresh whose claimant failed before it handed out a token', () => {
  it('is made by a later request (after the wait for the claimant), once: the session is not lost', async () => {
    let fail = false;
    let updates = 0;
    const { app, auth } = makeApp({
      tokenDuration: 1000,
      claimsUpdater: (claims) => {
        updates++;
        if (fail) throw new Error('the user directory is down');
        return claims;
      },
    });
    try {
      const first = await request(app).post('/auth/local/login').send({ user: 'alice', passwd: 'pw' }).expect(200);
      updates = 0;
      const { JWT: token, 'XSRF-TOKEN': xsrf } = setCookies(first);
      const cookie = `JWT=${token!.value}; XSRF-TOKEN=${xsrf!.value}`;
      await new Promise((r) => setTimeout(r, 1100));
      fail = true;
      const failed = await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf!.value);
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expect(failed.status).not.toBe(200);
      fail = false;
      // Within the claimant's wait, the claim stands; after it, one request makes the refresh.
      await new Promise((r) => setTimeout(r, 3100));
      const [a, b] = await Promise.all([0, 1].map(() => request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf!.value)));
      expect([a!.status, b!.status]).toEqual([200, 200]);
      expect(setCookies(a!).JWT?.value).toBe(setCookies(b!).JWT?.value);
      expect(updates).toBe(2);
    } finally {
      await auth.close();
    }
  }, 20_000);
});
