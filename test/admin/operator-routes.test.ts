import request from 'supertest';
import { organizations } from '../../src/organizations';
import { makeApp } from '../support/auth-app';
import { adminApp, rootIsAdmin, Session } from './admin-helpers';

const noMail = { send: async (): Promise<void> => undefined };

describe("the operator's views of the admin console (issue 49)", () => {
  it('lists every organization by page and one with its members, for admins only; a bad cursor is a 400', async () => {
    // Fifty-five organizations of one user: past orgCreatePerUser, so no limits here.
    const t = adminApp({ plugins: [organizations({ sender: noMail })], rateLimits: false });
    try {
      const root = new Session(t);
      await root.login('root');
      const bob = new Session(t);
      await bob.login('bob');
      for (let i = 0; i < 55; i++) expect((await bob.post('/auth/orgs', { name: `Team ${String(i).padStart(2, '0')}` })).status).toBe(201);

      expect((await bob.get('/auth/admin/orgs')).status).toBe(403);
      expect((await request(t.app).get('/auth/admin/orgs')).status).toBe(401);
      const first = await root.get('/auth/admin/orgs');
      expect(first.status).toBe(200);
      expect(first.body.orgs).toHaveLength(50);
      expect(first.body.orgs[0]).toEqual({ id: expect.stringMatching(/^org_/), name: 'Team 00', slug: 'team-00', created: expect.any(Number), members: 1 });
      const second = await root.get(`/auth/admin/orgs?cursor=${encodeURIComponent(first.body.next as string)}`);
      expect(second.body.orgs.map((o: { name: string }) => o.name)).toEqual(['Team 50', 'Team 51', 'Team 52', 'Team 53', 'Team 54']);
      expect(second.body.next).toBeUndefined();
      expect((await root.get(`/auth/admin/orgs?cursor=${'x'.repeat(600)}`)).status).toBe(400);

      const one = await root.get(`/auth/admin/orgs/${first.body.orgs[0].id as string}`);
      expect(one.body).toMatchObject({ name: 'Team 00', members: [{ userId: bob.id, name: 'bob', roles: ['owner'] }], invitations: 0 });
      expect((await root.get('/auth/admin/orgs/org_nope')).status).toBe(404);
      expect((await bob.get(`/auth/admin/orgs/${first.body.orgs[0].id as string}`)).status).toBe(403);
    } finally {
      await t.auth.close();
    }
  });

  it('without the admin plugin, the organization views are not there (404)', async () => {
    const t = makeApp({ plugins: [organizations({ sender: noMail })], claimsUpdater: rootIsAdmin });
    try {
      const root = new Session(t);
      await root.login('root');
      const res = await root.get('/auth/admin/orgs');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found' });
    } finally {
      await t.auth.close();
    }
  });

  it('the audit log answers filters by user, types and time, and refuses an unknown type with 400', async () => {
    const t = adminApp();
    try {
      const root = new Session(t);
      await root.login('root');
      const bob = new Session(t);
      await bob.login('bob');
      await new Promise((r) => setTimeout(r, 50));
      const mine = await root.get(`/auth/admin/audit?user=${encodeURIComponent(bob.id)}&type=login.succeeded`);
      expect(mine.status).toBe(200);
      expect(mine.body.events).toEqual([expect.objectContaining({ type: 'login.succeeded', userId: bob.id })]);
      expect((await root.get(`/auth/admin/audit?type=login.succeeded&from=${Date.now() + 60_000}`)).body.events).toEqual([]);
      expect((await root.get('/auth/admin/audit?type=no.such_type')).status).toBe(400);
    } finally {
      await t.auth.close();
    }
  });
});
