import request from 'supertest';
import { EventBus, loggerFunc, MemoryStateStore, senderFunc } from '../../src';
import { WebhookQueue } from '../../src/core/events/webhooks';
import { admin } from '../../src/admin';
import { organizations } from '../../src/organizations';
import { scim } from '../../src/plugins/scim';
import { makeApp, login } from '../support/auth-app';
import { faulty } from '../support/faulty';

const SCIM_USERS = '/auth/scim/v2/Users';

/** Waits until `check` holds (every 100 ms, at most `ms`). */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

/** An event bus on `state`'s queue of duties, as `createAuth` makes one (no audit log, no webhooks). */
function busOn(state: MemoryStateStore | ReturnType<typeof faulty<MemoryStateStore>>['store'], lines: string[] = []): { bus: EventBus; queue: WebhookQueue } {
  const logger = loggerFunc((line) => lines.push(line));
  const queue = new WebhookQueue(state, [], { logger, backoffMs: [], pollMs: 100 });
  const bus = new EventBus({ store: undefined, ipKey: async () => 'k'.repeat(32), logger, retentionMs: 86_400_000, webhooks: queue, types: new Set(['user.banned']) });
  return { bus, queue };
}

/**
 * What ends access after an event (a ban ends the tokens the user made, a deprovisioning the keys)
 * is a duty: a failed run is run again until it succeeds, and the grant is refused meanwhile.
 */
describe('duties: the handlers that end access after an event', () => {
  it("a ban whose revocation of the user's SCIM token fails: the token is refused at once, and the revocation runs again until it is done", async () => {
    const plugin = scim();
    const lines: string[] = [];
    const { app, auth } = makeApp({
      plugins: [admin({ isAdmin: (u) => u.name === 'root' }), organizations({ sender: senderFunc(() => undefined) }), plugin],
      logger: loggerFunc((line) => lines.push(line)),
    });
    const root = await login(app, 'root');
    const olga = await login(app, 'olga');
    await request(app).post('/auth/orgs').set('Cookie', olga.cookie).set('X-XSRF-TOKEN', olga.xsrf).send({ name: 'Acme', slug: 'acme' }).expect(201);
    const made = await request(app).post('/auth/orgs/acme/scim/tokens').set('Cookie', olga.cookie).set('X-XSRF-TOKEN', olga.xsrf).send({ name: 'directory' }).expect(201);
    const token = made.body.token as string;
    await request(app).get(SCIM_USERS).set('Authorization', `Bearer ${token}`).expect(200);
    // The revocation fails once (its store is down), then works.
    const tokens = plugin.tokens;
    const real = tokens.endTokensBy.bind(tokens);
    let failures = 0;
    tokens.endTokensBy = async (...args) => {
      if (failures++ === 0) throw new Error('simulated store failure');
      return real(...args);
    };
    const olgaId = olga.body.id as string;
    await request(app).post(`/auth/admin/users/${olgaId}/ban`).set('Cookie', root.cookie).set('X-XSRF-TOKEN', root.xsrf).send({ reason: 'spam' }).expect(200);
    await auth.events.flush();
    expect(failures).toBe(1);
    // Refused before the revocation ran again: the token acts with its maker's power, checked at each use.
    expect((await request(app).get(SCIM_USERS).set('Authorization', `Bearer ${token}`)).status).toBe(401);
    const revoked = async (): Promise<boolean> => (await auth.events.list({ types: ['scim.token.revoked'] })).events.some((e) => e.data.reason === 'banned');
    expect(await eventually(revoked, 8000)).toBe(true);
    expect(failures).toBe(2);
    expect(lines.join('\n')).toMatch(/a handler of user\.banned failed \(scim:end-tokens@user\.banned, tried again later\)/);
    // The ban lifted, the token stays revoked: the duty ended it for good.
    await request(app).post(`/auth/admin/users/${olgaId}/unban`).set('Cookie', root.cookie).set('X-XSRF-TOKEN', root.xsrf).send({}).expect(200);
    expect((await request(app).get(SCIM_USERS).set('Authorization', `Bearer ${token}`)).status).toBe(401);
    await auth.close();
  }, 15_000);

  it('a duty that failed on an instance that then stopped is run by another instance sharing the state store', async () => {
    const state = new MemoryStateStore();
    const first = busOn(state);
    const second = busOn(state);
    const ran: string[] = [];
    first.bus.on(
      'user.banned',
      () => {
        throw new Error('simulated store failure');
      },
      { retryAs: 'test:end-grants' },
    );
    second.bus.on('user.banned', (e) => void ran.push(e.userId ?? ''), { retryAs: 'test:end-grants' });
    // Only the first instance hears it (it happened there); its run fails and it stops.
    first.bus.emit({ type: 'user.banned', userId: 'u1', actor: { kind: 'system' } });
    await first.bus.close();
    expect(await eventually(async () => ran.includes('u1'), 5000)).toBe(true);
    expect(ran).toEqual(['u1']);
    // Done once: the queue is empty.
    expect(await state.members('webhook-queue')).toEqual([]);
    await second.bus.close();
  });

  it('a duty whose retry cannot be queued either (the state store is down too) is run again in this process', async () => {
    const state = faulty(new MemoryStateStore());
    state.set('fail');
    const lines: string[] = [];
    const { bus } = busOn(state.store, lines);
    let calls = 0;
    bus.on(
      'user.banned',
      () => {
        if (calls++ === 0) throw new Error('simulated store failure');
      },
      { retryAs: 'test:end-grants' },
    );
    bus.emit({ type: 'user.banned', userId: 'u1', actor: { kind: 'system' } });
    await bus.flush();
    expect(calls).toBe(1);
    expect(lines.join('\n')).toMatch(/a handler of user\.banned failed \(test:end-grants@user\.banned, tried again later\)/);
    expect(await eventually(async () => calls === 2, 4000)).toBe(true);
    await bus.close();
  });

  it('a duty name must be a plain name', () => {
    const { bus } = busOn(new MemoryStateStore());
    expect(() => bus.on('user.banned', () => undefined, { retryAs: '__proto__ x' })).toThrow(/retryAs/);
  });
});
