import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { hashId, MemoryUserStore, senderFunc, type AuthOptions, type UserStore } from '../../src';
import { organizations } from '../../src/organizations';
import { scim } from '../../src/plugins/scim';
import { rootIsAdmin } from '../admin/admin-helpers';
import { admin } from '../../src/admin';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';
import { describePostgres, describeRedis, dropSchema, sharedServer, startPostgres, startRedis, type TestServer } from '../support/servers';

const SECRET_OF_WEB = 'web-app-client-secret-0123456789abcdef';

/** Two instances of one issuer (one port each, one issuer URL: A's) sharing `stateStore`. */
function twoInstances(
  name: string,
  describeFn: jest.Describe,
  server: () => Promise<TestServer>,
  uriOf: (s: TestServer) => { uri: string; users: string | UserStore; cleanup(): Promise<void> },
): void {
  describeFn(`one issuer on two instances sharing ${name}`, () => {
    let a: IdpApp;
    let b: IdpApp;
    let rp: { url: string; close(): Promise<void> };
    let cleanup: () => Promise<void>;
    let callback: string;

    beforeAll(async () => {
      const store = uriOf(await server());
      cleanup = store.cleanup;
      rp = await nowhere();
      callback = `${rp.url}/callback`;
      const clients = [{ clientId: 'web', clientSecret: SECRET_OF_WEB, redirectUris: [callback], trusted: true }];
      const options = { stateStore: store.uri, userStore: store.users, claimsUpdater: rootIsAdmin };
      // Organizations and SCIM: a directory's deprovisioning (org.member.deprovisioned) ends grants too.
      const plugins = (): AuthOptions['plugins'] => [admin(), organizations({ sender: senderFunc(() => undefined) }), scim()];
      a = await startIdpApp({ clients }, { ...options, plugins: plugins() });
      // B serves the same issuer (A's URL) from its own port: what a load balancer in front of both does.
      b = await startIdpApp({ clients, issuer: a.issuer }, { ...options, url: a.url, plugins: plugins() });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await rp?.close();
      await cleanup?.();
    });

    /** A's discovery, with every endpoint moved to `instance`'s port. */
    async function configOn(instance: IdpApp): Promise<client.Configuration> {
      const config = await client.discovery(new URL(a.issuer), 'web', SECRET_OF_WEB, client.ClientSecretBasic(SECRET_OF_WEB), { execute: [client.allowInsecureRequests] });
      const meta = Object.fromEntries(Object.entries(config.serverMetadata()).map(([k, v]) => [k, typeof v === 'string' && k.endsWith('endpoint') ? v.replace(a.url, instance.url) : v]));
      const moved = new client.Configuration(meta as client.ServerMetadata, 'web', SECRET_OF_WEB, client.ClientSecretBasic(SECRET_OF_WEB));
      client.allowInsecureRequests(moved);
      return moved;
    }

    it('publishes one key set on both; a code issued by A is redeemed on B, and B answers userinfo for it', async () => {
      const jwksA = await (await fetch(`${a.issuer}/jwks`)).json();
      const jwksB = await (await fetch(`${b.url}/oidc/jwks`)).json();
      expect(jwksB).toEqual(jwksA);

      const browser = await new Navigator().login(a, 'alice');
      const onA = await configOn(a);
      const ended = await authorizeIn(browser, onA, callback, { scope: 'openid profile offline_access', prompt: 'consent' });
      const tokens = await client.authorizationCodeGrant(await configOn(b), ended.url as URL, { pkceCodeVerifier: ended.verifier, idTokenExpected: true });
      expect(tokens.claims()?.iss).toBe(a.issuer);
      expect(await client.fetchUserInfo(await configOn(b), tokens.access_token, tokens.claims()?.sub as string)).toMatchObject({ name: 'alice' });
    });

    it('a ban on A stops the user tokens on B at once: introspection inactive, userinfo and refresh refused', async () => {
      const browser = await new Navigator().login(b, 'carl');
      const onB = await configOn(b);
      const ended = await authorizeIn(browser, onB, callback, { scope: 'openid offline_access', prompt: 'consent' });
      const tokens = await client.authorizationCodeGrant(onB, ended.url as URL, { pkceCodeVerifier: ended.verifier });
      expect(await client.tokenIntrospection(onB, tokens.access_token)).toMatchObject({ active: true });
      const admin = await new Navigator().login(a, 'root');
      const banned = await admin.fetch(`${a.url}/auth/admin/users/${hashId('local', 'carl')}/ban`, {
        method: 'POST',
        headers: { 'x-xsrf-token': admin.cookies.get('XSRF-TOKEN') ?? '' },
        json: { reason: 'test' },
      });
      expect(banned.status).toBe(200);
      expect(await client.tokenIntrospection(onB, tokens.access_token)).toMatchObject({ active: false });
      await expect(client.fetchUserInfo(onB, tokens.access_token, client.skipSubjectCheck)).rejects.toBeDefined();
      await expect(client.refreshTokenGrant(onB, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    });

    it("an organization's directory deprovisioning the user on A stops its tokens on B within a second", async () => {
      const browser = await new Navigator().login(b, 'dora');
      const onB = await configOn(b);
      const ended = await authorizeIn(browser, onB, callback, { scope: 'openid offline_access', prompt: 'consent' });
      const tokens = await client.authorizationCodeGrant(onB, ended.url as URL, { pkceCodeVerifier: ended.verifier });
      expect(await client.tokenIntrospection(onB, tokens.access_token)).toMatchObject({ active: true });
      a.auth.events.emit({ type: 'org.member.deprovisioned', userId: hashId('local', 'dora'), actor: { kind: 'system' }, data: { org: 'org_directory', source: 'scim', reason: 'deleted' } });
      const emitted = Date.now();
      await a.auth.events.flush();
      expect(await client.tokenIntrospection(onB, tokens.access_token)).toMatchObject({ active: false });
      await expect(client.refreshTokenGrant(onB, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(Date.now() - emitted).toBeLessThan(1000);
    });

    it('a refresh token raced on A and B is rotated once: one answer has tokens, the other invalid_grant, and the family is revoked', async () => {
      const browser = await new Navigator().login(b, 'bob');
      const onB = await configOn(b);
      const ended = await authorizeIn(browser, onB, callback, { scope: 'openid offline_access', prompt: 'consent' });
      const first = await client.authorizationCodeGrant(onB, ended.url as URL, { pkceCodeVerifier: ended.verifier });
      const raced = await Promise.allSettled([client.refreshTokenGrant(await configOn(a), first.refresh_token as string), client.refreshTokenGrant(onB, first.refresh_token as string)]);
      expect(raced.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const lost = raced.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toMatchObject({ error: 'invalid_grant' });
      const won = (raced.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<client.TokenEndpointResponse>).value;
      // Two uses of one refresh token is a reuse: nothing of that grant works any more.
      await expect(client.refreshTokenGrant(onB, won.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    });
  });
}

const postgres = sharedServer(startPostgres);
twoInstances('PostgreSQL', describePostgres, postgres, (server) => {
  const schema = `idp_${randomBytes(6).toString('hex')}`;
  const uri = `${server.url}?schema=${schema}`;
  return { uri, users: uri, cleanup: () => dropSchema(server.url, schema) };
});
const redis = sharedServer(startRedis);
// The user directory is one in-process store here (a database in production): what is shared under test is Redis.
twoInstances('Redis', describeRedis, redis, (server) => ({ uri: server.url, users: new MemoryUserStore(), cleanup: async () => undefined }));
