import { randomBytes } from 'node:crypto';
import { sso } from '../../src/plugins/sso';
import { describePostgres, describeRedis, dropSchema, sharedServer, startPostgres, startRedis } from '../support/servers';
import { orgApp } from '../organizations/org-helpers';
import { samlConnection, SSO_KEY, SsoBrowser, ssoApp, ssoPeers } from './sso-helpers';

const peers = ssoPeers();

const postgres = sharedServer(startPostgres);
const redis = sharedServer(startRedis);
const describeBoth: jest.Describe = ((name: string, fn: () => void) => describePostgres(name, () => describeRedis(name, fn))) as jest.Describe;

describeBoth('SAML logins on two instances (PostgreSQL store, Redis state)', () => {
  it('an answer used on one instance is refused on the other: the request and the assertion are taken once', async () => {
    const server = await postgres();
    const schema = `ssoi_${randomBytes(6).toString('hex')}`;
    const store = `${server.url}?schema=${schema}`;
    const stateStore = (await redis()).url;
    const a = await ssoApp(peers.smtp, peers.dns, store, { privateOrigins: [peers.idp.origin] }, { stateStore });
    const b = orgApp(peers.smtp, store, { stateStore, plugins: [sso({ key: SSO_KEY, store, privateOrigins: [peers.idp.origin] })] });
    try {
      const { id } = await samlConnection(a, peers.idp);
      // A login started and completed on A; its answer (with the handshake cookie) replayed on B.
      const person = new SsoBrowser(a);
      const started = await person.start('email=someone@customer.test');
      const form = await peers.idp.follow(started.headers.location as string);
      expect((await person.post(form, peers.idp.origin)).status).toBe(200);
      const thief = new SsoBrowser(b);
      thief.jar.set('JWT', started.headers['set-cookie']![0]!.split(';')[0]!.slice(4));
      const replay = await thief.post(form, peers.idp.origin);
      expect([replay.status, replay.body.error]).toEqual([403, 'this login was already completed: start the login again']);

      // An IdP-initiated answer: its assertion id is remembered on every instance until it expires.
      expect((await a.owner.patch(`/auth/orgs/acme/sso/connections/${id}`, { allowIdpInitiated: true })).status).toBe(200);
      const unsolicited = await peers.idp.unsolicited('/');
      expect((await new SsoBrowser(b).post(unsolicited, peers.idp.origin)).status).toBe(303);
      const again = await new SsoBrowser(a).post(unsolicited, peers.idp.origin);
      expect([again.status, again.body.error]).toEqual([403, 'this assertion was used already']);
    } finally {
      await Promise.all([a.auth.close(), b.auth.close()]);
      await dropSchema(server.url, schema);
    }
  });
});
