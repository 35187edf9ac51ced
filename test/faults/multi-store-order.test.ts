import express from 'express';
import request from 'supertest';
import { createAccountRouter, createAuth, loggerFunc, MemoryCredentialStore, MemoryStateStore, MemoryUserStore, senderFunc } from '../../src';
import { MemoryAccountStore } from '../../src/accounts';
import { admin } from '../../src/admin';
import { MemoryOrgStore, organizations } from '../../src/organizations';
import { scim } from '../../src/plugins/scim';
import { SECRET, makeApp, login } from '../support/auth-app';
import { faulty } from '../support/faulty';

/**
 * Operations that write to two stores, with a fault between the writes (docs/stores.md, "Operations
 * on several stores"): the answer tells what was done, and a 503 only where nothing was.
 */
describe('a fault between the writes of one operation', () => {
  it('a ban whose sessions cannot be ended answers 202 with what is pending: the ban stands, its event fires, and the sessions are refused', async () => {
    const state = faulty(new MemoryStateStore());
    const users = new MemoryUserStore();
    // The state store (sessions) fails from the moment the ban is in the user directory.
    let banning = false;
    const userStore = new Proxy(users, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (key !== 'update' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          const saved = (await (value as (...a: unknown[]) => Promise<{ status?: string } | undefined>).apply(target, args)) as { status?: string } | undefined;
          if (banning && saved?.status === 'banned') state.set('fail');
          return saved;
        };
      },
    });
    const lines: string[] = [];
    const { app, auth } = makeApp({
      stateStore: state.store,
      userStore,
      // Short tokens: the ban shows at the session's next refresh.
      tokenDuration: 1000,
      plugins: [admin({ isAdmin: (u) => u.name === 'root' })],
      logger: loggerFunc((line) => lines.push(line)),
    });
    const root = await login(app, 'root');
    const victim = await login(app, 'victim');
    const victimId = (victim.body as { id: string }).id;
    banning = true;
    const res = await request(app).post(`/auth/admin/users/${victimId}/ban`).set('Cookie', root.cookie).set('X-XSRF-TOKEN', root.xsrf).send({ reason: 'spam' });
    banning = false;
    state.set('ok');
    expect([res.status, res.body.status, res.body.pending]).toEqual([202, 'banned', ['sessions']]);
    expect((await auth.users.get(victimId))?.status).toBe('banned');
    expect(lines.join('\n')).toMatch(/the ban of .* was saved, but ending its sessions failed/);
    await auth.events.flush();
    const { events } = await auth.events.list({ types: ['user.banned'], userId: victimId });
    expect(events[0]?.data).toMatchObject({ reason: 'spam', pending: ['sessions'] });
    // The ban refuses the session the state store could not end, at its next refresh.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await request(app).get('/private').set('Cookie', victim.cookie).set('X-XSRF-TOKEN', victim.xsrf)).status).not.toBe(200);
    await auth.close();
  });

  it('an e-mail change whose credential updates fail after the address is saved answers 202 with what is pending, never 503; the new address signs in', async () => {
    const t = await accountWithFault('changeEmail', 'mover@example.com');
    await request(t.app).post(`/account/profile/${t.id}/email`).set('Authorization', t.bearer).send({ NewEmail: 'moved@example.com', Pwd: 'old-password' }).expect(202);
    const code = t.mails.map((m) => /\b([0-9a-f]{32})\b/.exec(m)?.[1]).findLast((c) => c !== undefined) ?? '';
    const res = await t.faultAfter(() => request(t.app).post(`/account/profile/${t.id}/email/confirm`).set('Authorization', t.bearer).send({ Code: code }));
    expect([res.status, res.body.Email, res.body.Pending]).toEqual([202, 'moved@example.com', expect.arrayContaining(['passkey names'])]);
    expect(t.lines.join('\n')).toMatch(/the e-mail change was saved, but updating its .* failed/);
    await request(t.app).post('/account/tokens').send({ grant_type: 'password', email: 'moved@example.com', password: 'old-password' }).expect(200);
    await request(t.app).post('/account/tokens').send({ grant_type: 'password', email: 'mover@example.com', password: 'old-password' }).expect(401);
    await t.close();
  });

  it('an account deleted before its credentials could be removed answers 202 naming them, never 503', async () => {
    const t = await accountWithFault('delete', 'leaver@example.com');
    const res = await t.faultAfter(() => request(t.app).delete(`/account/profile/${t.id}`).set('Authorization', t.bearer).send({ Pwd: 'old-password' }));
    expect([res.status, res.body.Message, res.body.Pending]).toEqual([202, 'Account deleted', ['credentials']]);
    expect(await t.inner.get(t.id)).toBeUndefined();
    expect(t.lines.join('\n')).toMatch(/the account was deleted, but removing its credentials failed/);
    await t.close();
  });
});

describe('accepting an invitation when the organization cannot be written', () => {
  it('answers 503 with the invitation put back: the retry joins', async () => {
    const { store, failing } = failingOrgStore();
    const mails: string[] = [];
    const { app, auth } = makeApp({ plugins: [organizations({ store, sender: senderFunc((_to, text) => void mails.push(text)) })] });
    const owner = await login(app, 'olga');
    const made = await request(app).post('/auth/orgs').set('Cookie', owner.cookie).set('X-XSRF-TOKEN', owner.xsrf).send({ name: 'Acme', slug: 'acme' });
    expect(made.status).toBe(201);
    expect((await request(app).post('/auth/orgs/acme/invitations').set('Cookie', owner.cookie).set('X-XSRF-TOKEN', owner.xsrf).send({ email: 'ivy@example.com', role: 'member' })).status).toBe(201);
    const token = /#invitation=([A-Za-z0-9_-]+)/.exec(mails.at(-1)?.replace(/=\r?\n/g, '') ?? '')?.[1] as string;
    const ivy = await login(app, 'ivy');
    const accept = (): request.Test => request(app).post('/auth/orgs/invitations/accept').set('Cookie', ivy.cookie).set('X-XSRF-TOKEN', ivy.xsrf).send({ token });
    expect((await failing(() => accept())).status).toBe(503);
    const joined = await accept();
    expect([joined.status, joined.body.role]).toEqual([200, 'member']);
    await auth.close();
  });
});

/**
 * An activated account (password `old-password`) on the standalone account router, whose
 * credential store fails from the moment the account store's `method` has saved, during a request
 * sent with `faultAfter`: a fault between the two writes of one operation.
 */
async function accountWithFault(
  method: 'changeEmail' | 'delete',
  email: string,
): Promise<{
  app: express.Express;
  inner: MemoryAccountStore;
  id: string;
  bearer: string;
  mails: string[];
  lines: string[];
  faultAfter<T>(send: () => PromiseLike<T>): Promise<T>;
  close(): Promise<void>;
}> {
  const credentials = faulty(new MemoryCredentialStore());
  const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: SECRET, credentialStore: credentials.store });
  const inner = new MemoryAccountStore();
  const mails: string[] = [];
  const lines: string[] = [];
  let armed = false;
  const accounts = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== method || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const saved = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (armed) credentials.set('fail');
        return saved;
      };
    },
  });
  const router = createAccountRouter({
    store: accounts,
    sender: senderFunc((_to, text) => void mails.push(text)),
    baseUrl: 'http://127.0.0.1:8080/account',
    bcryptRounds: 4,
    rateLimits: false,
    loginSessions: { sessions: auth.sessions, provider: 'accounts', credentials: credentials.store },
    logger: loggerFunc((line) => lines.push(line)),
  });
  const app = express().use('/account', router);
  await request(app).post('/account/signup').send({ Email: email, Pwd: 'old-password', PwdRepeat: 'old-password' }).expect(202);
  const link = new URL(/(http:\/\/\S+\/active\/\S+)/.exec(mails.at(-1) ?? '')?.[1] ?? '');
  await request(app)
    .get(link.pathname + link.search)
    .expect(200);
  const token = (await request(app).post('/account/tokens').send({ grant_type: 'password', email, password: 'old-password' }).expect(200)).body as { AccessToken: string; User: { Id: string } };
  return {
    app,
    inner,
    id: token.User.Id,
    bearer: `Bearer ${token.AccessToken}`,
    mails,
    lines,
    async faultAfter(send) {
      armed = true;
      try {
        return await send();
      } finally {
        armed = false;
        credentials.set('ok');
      }
    },
    close: () => auth.close(),
  };
}

describe("a directory's deprovisioning when the organization cannot be written", () => {
  const OFF = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] };

  it("a deactivation answers 503 in SCIM shape, and the directory's retry of the same request removes the membership", async () => {
    const t = await directoryWithFault();
    expect(await t.members()).toContain(t.userId);
    const failed = await t.failing(() => t.scimSend('patch', `/Users/${t.personId}`, OFF));
    expect([failed.status, failed.body.schemas]).toEqual([503, ['urn:ietf:params:scim:api:messages:2.0:Error']]);
    const retried = await t.scimSend('patch', `/Users/${t.personId}`, OFF);
    expect([retried.status, retried.body.active]).toEqual([200, false]);
    expect(await t.members()).not.toContain(t.userId);
    await t.close();
  });

  it("a create whose membership cannot be written answers 503, and the directory's retry of the same request finishes it (not 409); a real duplicate is still 409", async () => {
    const t = await directoryWithFault();
    const body = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'quinn@example.com', externalId: 'ext-quinn', active: true };
    const failed = await t.failing(() => t.scimSend('post', '/Users', body));
    expect([failed.status, failed.body.schemas]).toEqual([503, ['urn:ietf:params:scim:api:messages:2.0:Error']]);
    const retried = await t.scimSend('post', '/Users', body);
    expect([retried.status, retried.body.userName]).toEqual([201, 'quinn@example.com']);
    expect((await t.scimSend('get', `/Users/${retried.body.id as string}`)).status).toBe(200);
    // Olga, pat and now quinn: the retry made the membership the first attempt could not.
    expect((await t.members()).length).toBe(3);
    // Sent once more, now that it is whole: the duplicate it is.
    const again = await t.scimSend('post', '/Users', body);
    expect([again.status, again.body.scimType]).toEqual([409, 'uniqueness']);
    await t.close();
  });

  it('a DELETE answers 503 with the person kept, and its retry removes the membership and the person', async () => {
    const t = await directoryWithFault();
    expect((await t.failing(() => t.scimSend('delete', `/Users/${t.personId}`))).status).toBe(503);
    expect((await t.scimSend('delete', `/Users/${t.personId}`)).status).toBe(204);
    expect(await t.members()).not.toContain(t.userId);
    await t.close();
  });
});

/** An organization store whose writes of members (and of organizations) fail while `failing` is set. */
const WRITES = new Set(['update', 'addMember', 'updateMember', 'removeMember']);

function failingOrgStore(): { store: MemoryOrgStore; failing<T>(send: () => PromiseLike<T>): Promise<T> } {
  const inner = new MemoryOrgStore();
  let failing = false;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof key !== 'string' || !WRITES.has(key)) return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        if (failing) throw new Error('simulated store failure');
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  return {
    store,
    async failing(send) {
      failing = true;
      try {
        return await send();
      } finally {
        failing = false;
      }
    },
  };
}

/** acme, its SCIM token and one provisioned person, on an organization store that fails on demand. */
async function directoryWithFault(): Promise<{
  personId: string;
  userId: string;
  scimSend(method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object): request.Test;
  members(): Promise<string[]>;
  failing<T>(send: () => PromiseLike<T>): Promise<T>;
  close(): Promise<void>;
}> {
  const orgStore = failingOrgStore();
  const plugin = scim();
  const { app, auth } = makeApp({ plugins: [organizations({ store: orgStore.store, sender: senderFunc(() => undefined) }), plugin] });
  const owner = await login(app, 'olga');
  const asOwner = (test: request.Test): request.Test => test.set('Cookie', owner.cookie).set('X-XSRF-TOKEN', owner.xsrf);
  const org = await asOwner(request(app).post('/auth/orgs')).send({ name: 'Acme', slug: 'acme' });
  const token = (await asOwner(request(app).post('/auth/orgs/acme/scim/tokens')).send({ name: 'directory' })).body.token as string;
  const scimSend = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object): request.Test => {
    const sent = request(app)[method](`/auth/scim/v2${path}`).set('Authorization', `Bearer ${token}`);
    return body === undefined ? sent : sent.set('Content-Type', 'application/scim+json').send(JSON.stringify(body));
  };
  const made = await scimSend('post', '/Users', { userName: 'pat@example.com' });
  expect(made.status).toBe(201);
  return {
    personId: made.body.id as string,
    userId: (await plugin.users.get(org.body.id as string, made.body.id as string)).userId,
    scimSend,
    members: async () => ((await asOwner(request(app).get('/auth/orgs/acme/members'))).body as Array<{ userId: string }>).map((m) => m.userId),
    failing: orgStore.failing,
    close: () => auth.close(),
  };
}
