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
