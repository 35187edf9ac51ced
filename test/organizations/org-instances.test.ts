import { randomBytes } from 'node:crypto';
import { eventually } from '../support/eventually';
import { describePostgres, describeRedis, dropSchema, sharedServer, startPostgres, startRedis } from '../support/servers';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { Browser, orgApp, tokenOf, type OrgApp } from './org-helpers';

let smtp: SmtpPeer;
beforeAll(async () => {
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());

const postgres = sharedServer(startPostgres);
const redis = sharedServer(startRedis);

/** Two instances sharing the organization store (PostgreSQL) and a state store; closed after the test. */
async function twoInstances(stateStore: () => Promise<string>, run: (a: OrgApp, b: OrgApp) => Promise<void>): Promise<void> {
  const server = await postgres();
  const schema = `oi_${randomBytes(6).toString('hex')}`;
  const store = `${server.url}?schema=${schema}`;
  const state = await stateStore();
  const [a, b] = [orgApp(smtp, store, { stateStore: state }), orgApp(smtp, store, { stateStore: state })];
  try {
    await run(a, b);
  } finally {
    await Promise.all([a.auth.close(), b.auth.close()]);
    await dropSchema(server.url, schema);
  }
}

function instanceSuite(describeFn: jest.Describe, name: string, stateStore: () => Promise<string>): void {
  describeFn(`organizations on two instances (PostgreSQL organizations, ${name} state)`, () => {
    it('a removal or a role change on A holds on B at the next request, though B had the membership cached', async () => {
      await twoInstances(stateStore, async (a, b) => {
        const alice = await new Browser(a.app).login('alice');
        const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Spread', slug: 'spread' })).body as { id: string };
        const since = smtp.mails.length;
        expect((await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'bob@example.com', role: 'admin' })).status).toBe(201);
        const token = tokenOf((await smtp.nextMail(since)).body);
        // Bob uses instance B only, with a session made on A.
        const bobOnA = await new Browser(a.app).login('bob');
        const bob = new Browser(b.app);
        bob.jar.set('JWT', bobOnA.jar.get('JWT') ?? '');
        bob.jar.set('XSRF-TOKEN', bobOnA.jar.get('XSRF-TOKEN') ?? '');
        bob.id = bobOnA.id;
        expect((await bob.post('/auth/orgs/invitations/accept', { token })).status).toBe(200);
        expect((await bob.post(`/auth/orgs/${orgId}/activate`)).status).toBe(200);
        expect((await bob.get('/workspace/settings')).status).toBe(200);
        expect((await bob.get('/workspace/settings')).status).toBe(200); // cached on B now

        expect((await alice.patch(`/auth/orgs/${orgId}/members/${bob.id}`, { role: 'member' })).status).toBe(200);
        const demoted = await eventually(
          async () => {
            const res = await bob.get('/workspace/settings');
            expect(res.status).toBe(403);
            return res;
          },
          3000,
          10,
        );
        expect(demoted.body).toMatchObject({ code: 'role_required' });
        expect((await bob.get('/workspace')).status).toBe(200);

        expect((await alice.delete(`/auth/orgs/${orgId}/members/${bob.id}`)).status).toBe(200);
        const removed = await eventually(
          async () => {
            const res = await bob.get('/workspace');
            expect(res.status).toBe(403);
            return res;
          },
          3000,
          10,
        );
        expect(removed.body).toMatchObject({ code: 'not_a_member' });
      });
    });

    it('an invitation accepted on both instances at once joins one user', async () => {
      await twoInstances(stateStore, async (a, b) => {
        const alice = await new Browser(a.app).login('alice');
        const { id: orgId } = (await alice.post('/auth/orgs', { name: 'Once' })).body as { id: string };
        const since = smtp.mails.length;
        await alice.post(`/auth/orgs/${orgId}/invitations`, { email: 'shared@example.com' });
        const token = tokenOf((await smtp.nextMail(since)).body);
        const [x, y] = [await new Browser(a.app).login('x'), await new Browser(b.app).login('y')];
        const answers = await Promise.all([x.post('/auth/orgs/invitations/accept', { token }), y.post('/auth/orgs/invitations/accept', { token })]);
        expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
        expect(((await alice.get(`/auth/orgs/${orgId}/members`)).body as unknown[]).length).toBe(2);
      });
    });
  });
}

instanceSuite(describePostgres, 'PostgreSQL', async () => {
  const server = await postgres();
  return `${server.url}?schema=os_${randomBytes(6).toString('hex')}`;
});
instanceSuite(describeRedis, 'Redis', async () => {
  const server = await redis();
  return `${server.url}?prefix=oi${randomBytes(4).toString('hex')}:`;
});
