import request from 'supertest';
import { twoFactor, type AuthPlugin } from '../../src';
import { login, makeApp } from '../support/auth-app';

/** A plugin written as an app would: a route, a hold phase, a rate limit of its own. */
function approvals(seen: string[]): AuthPlugin {
  return {
    name: 'approvals',
    rateLimits: { approvalsPerUser: { limit: 2, windowMs: 60_000 } },
    setup(ctx) {
      return {
        routes(router) {
          router.get('/approvals/ping', async (req, res, next) => {
            try {
              const claims = await ctx.authenticator.tokenClaims(req, res);
              await ctx.rateLimit('approvalsPerUser', (claims.user as { id: string }).id);
              res.json({ pong: (claims.user as { name: string }).name });
            } catch (err) {
              next(err);
            }
          });
        },
        phases: {
          async hold(_req, res, login) {
            seen.push(`hold:${login.user.name}`);
            if (login.user.name !== 'held') return false;
            res.writeHead(202, { 'Content-Type': 'application/json' }).end(JSON.stringify({ status: 'waiting for approval' }));
            return true;
          },
        },
      };
    },
  };
}

describe('the plugin seam', () => {
  it('a plugin adds routes, a login phase and a rate limit (overridable by the app) without touching the core', async () => {
    const seen: string[] = [];
    const { app, auth } = makeApp({ plugins: [approvals(seen)], rateLimits: { approvalsPerUser: { limit: 3, windowMs: 60_000 } } });
    const held = await request(app).post('/auth/local/login').send({ user: 'held', passwd: 'pw' }).expect(202);
    expect(held.body).toEqual({ status: 'waiting for approval' });
    expect(held.headers['set-cookie']).toBeUndefined();
    const { cookie, xsrf } = await login(app, 'free');
    expect(seen).toEqual(['hold:held', 'hold:free']);
    for (let i = 0; i < 3; i++) await request(app).get('/auth/approvals/ping').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200, { pong: 'free' });
    const limited = await request(app).get('/auth/approvals/ping').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    await request(app).get('/auth/approvals/ping').expect(401);
    await auth.close();
  });

  it('each login phase belongs to one plugin, and the core runs them in its own order', () => {
    expect(() => makeApp({ plugins: [approvals([]), twoFactor({ key: 'k'.repeat(32) })] })).toThrow(/both take the login phase hold/);
    expect(() => makeApp({ plugins: [{ name: 'x' } as unknown as AuthPlugin] })).toThrow(/plugin factories/);
    expect(() => makeApp({ plugins: 'twoFactor' as unknown as AuthPlugin[] })).toThrow(/list of plugins/);
    expect(() => makeApp({ twoFactor: { key: 'k'.repeat(32) }, plugins: [twoFactor({ key: 'k'.repeat(32) })] })).toThrow(/listed twice/);
  });

  it('a plugin names the plugins it needs: a missing one fails at start-up, naming it; their order does not matter', () => {
    const reports: AuthPlugin = { name: 'reports', requires: ['secondFactorless', 'organizations'], setup: () => ({}) };
    expect(() => makeApp({ plugins: [reports] })).toThrow(/plugin reports needs the secondFactorless, organizations plugins: add them to plugins/);
    const needsTwoFactor: AuthPlugin = { name: 'needs-2fa', requires: ['two-factor'], setup: () => ({}) };
    expect(() => makeApp({ plugins: [needsTwoFactor] })).toThrow(/plugin needs-2fa needs the two-factor plugin: add it to plugins \(in any order\)/);
    expect(() => makeApp({ plugins: [needsTwoFactor, twoFactor({ key: 'k'.repeat(32) })] })).not.toThrow();
  });
});
