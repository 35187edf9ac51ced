import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createStateStore, type AuthOptions, type StateStore } from '../../src';
import { RevocationCache } from '../../src/core/sessions/revocation-cache';
import { SessionRegistry } from '../../src/core/sessions/session-registry';
import { login, makeApp, type TestApp } from '../support/auth-app';
import { decodeJwt, setCookies } from '../support/cookies';
import { eventually } from '../support/eventually';
import { describePostgres, describeRedis, sharedServer, startPostgres, startRedis } from '../support/servers';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Session = { cookie: string; xsrf: string; jwt: string };
const get = (t: TestApp, path: string, s: { cookie: string; xsrf: string }): request.Test => request(t.app).get(path).set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf);
const post = (t: TestApp, path: string, s: { cookie: string; xsrf: string }): request.Test => request(t.app).post(path).set('Cookie', s.cookie).set('X-XSRF-TOKEN', s.xsrf);

/** Two instances on one shared state store; closed after the test. */
async function twoInstances(stateStore: string, options: Partial<AuthOptions>, run: (a: TestApp, b: TestApp) => Promise<void>): Promise<void> {
  const [a, b] = [makeApp({ stateStore, ...options }), makeApp({ stateStore, ...options })];
  try {
    await run(a, b);
  } finally {
    await Promise.all([a.auth.close(), b.auth.close()]);
  }
}

/** The same session tests on every shared store. */
function sharedSessionSuite(describeFn: jest.Describe, name: string, storeUri: () => Promise<string>): void {
  describeFn(`sessions across two instances sharing ${name}`, () => {
    it("'every-request': a cookie copied before logout on one instance is refused on the other as soon as the store announces the logout", async () => {
      await twoInstances(await storeUri(), { revocationCheck: 'every-request' }, async (a, b) => {
        const s: Session = await login(a.app);
        await get(b, '/private', s).expect(200);
        await get(b, '/private', s).expect(200); // now in b's cache
        await get(a, '/auth/logout', s).expect(200);
        // Every instance hears the announcement on a connection of its own, each in its own time
        // under load: b must refuse once its copy has come, and its cache would keep the session
        // for ten minutes without it.
        const refused = await eventually(() => get(b, '/private', s).expect(401), 3000, 10);
        expect(refused.body).toEqual({ error: 'the session was revoked', code: 'session_revoked' });
        await get(a, '/private', s).expect(401);
      });
    });

    it("'refresh': a cookie copied before logout stops within tokenDuration on the other instance", async () => {
      // exp is in whole seconds: 3 s of tokenDuration leave the token at least 2 s, enough for the
      // logout and the first request even on a loaded machine (1 s could leave it a millisecond).
      await twoInstances(await storeUri(), { tokenDuration: 3000 }, async (a, b) => {
        const s: Session = await login(a.app);
        await get(a, '/auth/logout', s).expect(200);
        await get(b, '/private', s).expect(200);
        await sleep((decodeJwt(s.jwt).payload.exp as number) * 1000 - Date.now() + 50);
        await get(b, '/private', s).expect(401);
      });
    });

    it('concurrent refreshes of one session on both instances make one new token; a later copy of the old one is refused', async () => {
      let updates = 0;
      await twoInstances(
        await storeUri(),
        {
          tokenDuration: 1000,
          claimsUpdater: (c) => {
            if (c.iat !== undefined && c.user !== undefined) updates++;
            return c;
          },
        },
        async (a, b) => {
          const s: Session = await login(a.app);
          const before = updates;
          await sleep((decodeJwt(s.jwt).payload.exp as number) * 1000 - Date.now() + 50);
          const answers = await Promise.all([...Array(4)].flatMap(() => [get(a, '/private', s), get(b, '/private', s)]));
          expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
          expect(new Set(answers.map((r) => setCookies(r).JWT?.value)).size).toBe(1);
          expect(updates - before).toBe(1);
          const list = await a.auth.sessions.list((answers[0]!.body as { id: string }).id);
          expect(list).toHaveLength(1);
        },
      );
    });

    it("'every-request' answers from memory after the first read, and a revocation announced by the other instance empties it", async () => {
      const uri = await storeUri();
      let reads = 0;
      const counted = (store: StateStore): StateStore =>
        new Proxy(store, {
          get(target, key, receiver) {
            if (key === 'get') reads++;
            return Reflect.get(target, key, receiver) as unknown;
          },
        });
      const [storeA, storeB] = [createStateStore(uri), createStateStore(uri)];
      const options = { tokenDuration: 60_000, cookieDuration: 60_000, maxSessionsPerUser: 5, secretFor: async () => 'secret' };
      const [registryA, registryB] = [new SessionRegistry(storeA, options), new SessionRegistry(counted(storeB), options)];
      const cacheB = new RevocationCache(registryB, counted(storeB));
      try {
        const claims = { jti: 'jti-1', aud: 'a', user: { id: 'u1', name: 'u', picture: '' } };
        await registryA.start(claims, { userAgent: undefined, ip: '127.0.0.1' });
        const deadline = Date.now() + 3000;
        // Until B's subscription is live every check reads the store; then the second check is answered from memory.
        while (Date.now() < deadline) {
          expect(await cacheB.status('jti-1', 'u1')).toBe('active');
          const before = reads;
          expect(await cacheB.status('jti-1', 'u1')).toBe('active');
          if (reads === before) break;
          await sleep(20);
        }
        const before = reads;
        expect(cacheB.status('jti-1', 'u1')).toBe('active');
        expect(reads).toBe(before);
        expect(await registryA.revoke('jti-1')).toBe(true);
        await eventually(async () => expect(await cacheB.status('jti-1', 'u1')).toBe('revoked'), 2000, 5);
      } finally {
        await cacheB.close();
        await Promise.all([storeA.close(), storeB.close()]);
      }
    });

    it('revoke-others on one instance keeps the current session and ends the rest everywhere', async () => {
      await twoInstances(await storeUri(), { revocationCheck: 'every-request' }, async (a, b) => {
        const phone: Session = await login(a.app);
        const laptop: Session = await login(b.app);
        await get(a, '/private', phone).expect(200);
        expect((await post(b, '/auth/sessions/revoke-others', laptop).expect(200)).body).toEqual({ revoked: 1 });
        // a may have the phone's session in memory: refused once a hears the announcement.
        await eventually(() => get(a, '/private', phone).expect(401), 3000, 10);
        await get(a, '/private', laptop).expect(200);
        const listed = (await get(a, '/auth/sessions', laptop).expect(200)).body as Array<{ current: boolean }>;
        expect(listed.map((x) => x.current)).toEqual([true]);
      });
    });
  });
}

const redis = sharedServer(startRedis);
sharedSessionSuite(describeRedis, 'Redis', async () => `${(await redis()).url}?prefix=s${randomBytes(4).toString('hex')}:`);

const postgres = sharedServer(startPostgres);
sharedSessionSuite(describePostgres, 'PostgreSQL', async () => `${(await postgres()).url}?schema=s_${randomBytes(4).toString('hex')}`);
