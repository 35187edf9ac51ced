import type { RequestHandler } from 'express';
import request from 'supertest';
import { AuthError, createAuth, senderFunc, twoFactor, type AuthErrorReason, type AuthEventType, type AuthPlugin } from '../../src';
import { organizations } from '../../src/organizations';
// Loaded, not added: its guard then names the plugin to add.
import '../../src/api-keys';
import { login, makeApp } from '../support/auth-app';

declare module '../../src' {
  interface AuthErrorReasons {
    plan_required: true;
  }
  interface AuthEventTypes {
    'plan.checked': true;
  }
  interface Middleware {
    plan(name: string): RequestHandler;
  }
}

/** A plugin of an app that adds a reason, an event type and a guard, each typed from here. */
function plans(): AuthPlugin {
  return {
    name: 'plans',
    errorCodes: ['plan_required'],
    eventTypes: ['plan.checked'],
    setup: (ctx) => ({
      guards: {
        plan: (name) => (_req, user) => {
          ctx.events.emit({ type: 'plan.checked', userId: user.id, actor: { kind: 'system' }, data: { plan: name } }, {});
          return user.attrs?.plan === name ? undefined : new AuthError('forbidden', `this needs the ${name} plan`, { reason: 'plan_required' });
        },
      },
    }),
  };
}

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

  it('a plugin adds error reasons, event types and middleware guards from its own module, typed with no cast', async () => {
    const { app, auth } = makeApp({ plugins: [plans()], webhooks: [{ url: 'http://127.0.0.1:9/hook', secret: 's'.repeat(32), events: ['plan.checked', 'login.succeeded'] }] });
    app.get('/pro', auth.middleware().plan('pro'), (_req, res) => res.json({ ok: true }));
    const { cookie, xsrf } = await login(app, 'free');
    const refused = await request(app).get('/pro').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(403);
    const reason: AuthErrorReason = 'plan_required';
    expect(refused.body).toEqual({ error: 'this needs the pro plan', code: reason });
    await auth.events.flush();
    const type: AuthEventType = 'plan.checked';
    const { events } = await auth.events.list({ types: [type] });
    expect(events.map((e) => [e.type, e.data])).toEqual([['plan.checked', { plan: 'pro' }]]);
    await expect(auth.events.list({ types: ['plan.unknown' as AuthEventType] })).rejects.toThrow(/no event type "plan.unknown"/);
    await auth.close();
  });

  it('an event type no plugin declares is refused in webhooks; a guard of a plugin not in use names the plugin to add', () => {
    const hook = { url: 'http://127.0.0.1:9/hook', secret: 's'.repeat(32) };
    expect(() => makeApp({ webhooks: [{ ...hook, events: ['plan.checked'] }] })).toThrow(/options.webhooks\[0\].events: no event type "plan.checked"/);
    expect(() => makeApp({ webhooks: [{ ...hook, events: ['org.deleted'] }] })).toThrow(/no event type "org.deleted"/);
    expect(() => makeApp({ plugins: [organizations({ sender: senderFunc(() => undefined) })], webhooks: [{ ...hook, events: ['org.deleted'] }] })).not.toThrow();
    const auth = createAuth({ url: 'http://127.0.0.1:8080', secret: 'x'.repeat(32), avatarStore: 'memory://' });
    expect(() => auth.middleware().org('admin')).toThrow(/m.org\(\) needs its plugin: createAuth\(\{ plugins: \[organizations\(\{...\}\)\] \}\)/);
    expect(() => auth.middleware().scopes('read')).toThrow(/m.scopes\(\) needs its plugin: createAuth\(\{ plugins: \[apiKeys\(\)\] \}\)/);
    const greedy: AuthPlugin = { name: 'greedy', setup: () => ({ guards: { admin: () => () => undefined } }) };
    expect(() => makeApp({ plugins: [greedy] }).auth.middleware()).toThrow(/a plugin offers m.admin\(\), which the core has already/);
  });

  it('routes are data: a plugin declares method, path, handler and a per-IP rate limit; other methods there answer 405', async () => {
    const ping: AuthPlugin = {
      name: 'ping',
      rateLimits: { pingPerIp: { limit: 2, windowMs: 60_000 } },
      setup: () => ({ routes: [{ method: 'GET', path: '/ping/:n', rateLimit: 'pingPerIp', handler: (req, res) => void res.json({ pong: req.params.n }) }] }),
    };
    const { app, auth } = makeApp({ plugins: [ping] });
    await request(app).get('/auth/ping/1').expect(200, { pong: '1' });
    const wrong = await request(app).post('/auth/ping/2').expect(405);
    expect(wrong.headers.allow).toBe('GET');
    expect(wrong.body).toEqual({ error: 'use GET', code: 'method_not_allowed' });
    await request(app).get('/auth/ping/3').expect(200);
    const limited = await request(app).get('/auth/ping/4').expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.body.code).toBe('rate_limited');
    await auth.close();
  });

  it('two plugins, or a plugin and the core, claiming one route fail at start-up naming both, whichever way they add it', () => {
    const data = (name: string, method: 'GET' | 'POST' | 'ALL', path: string): AuthPlugin => ({ name, setup: () => ({ routes: [{ method, path, handler: (_req, res) => void res.end() }] }) });
    const calls = (name: string, path: string): AuthPlugin => ({ name, setup: () => ({ routes: (router) => void router.get(path, (_req, res) => void res.end()) }) });
    const start = (plugins: AuthPlugin[]): unknown => makeApp({ plugins }).auth.handlers();
    expect(() => start([data('a', 'GET', '/x/:id'), data('b', 'GET', '/X/:other/')])).toThrow(/plugin a and plugin b both claim GET \/X\/:other\/; one route has one owner/);
    expect(() => start([data('a', 'GET', '/x'), calls('b', '/x')])).toThrow(/plugin a and plugin b both claim GET \/x/);
    expect(() => start([data('a', 'ALL', '/x'), data('b', 'POST', '/x')])).toThrow(/plugin a and plugin b both claim the path \/x/);
    expect(() => start([data('a', 'GET', '/sessions')])).toThrow(/plugin sessions and plugin a both claim GET \/sessions/);
    expect(() => start([calls('a', '/logout')])).toThrow(/the core and plugin a both claim the path \/logout/);
    expect(() => start([data('a', 'GET', '/x'), data('b', 'POST', '/x')])).not.toThrow();
  });

  it('a plugin is set up after the plugins it requires or uses, whatever their order; a circle fails naming it', () => {
    const order: string[] = [];
    const made = (name: string, extra: Partial<AuthPlugin> = {}): AuthPlugin => ({
      name,
      ...extra,
      setup: (ctx) => {
        order.push(`${name}:${ctx.service<string>('base') ?? '-'}`);
        return name === 'base' ? { services: { base: 'ready' } } : {};
      },
    });
    makeApp({ plugins: [made('user', { optional: ['base', 'absent'] }), made('other'), made('base')] });
    expect(order).toEqual(['base:-', 'user:ready', 'other:ready']);
    expect(() => makeApp({ plugins: [made('a', { requires: ['b'] }), made('b', { optional: ['a'] })] })).toThrow(/plugins need each other in a circle: a -> b -> a/);
  });
});
