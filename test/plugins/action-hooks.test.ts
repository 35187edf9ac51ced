import request from 'supertest';
import { AuthError, type ActionCall, type AuthPlugin } from '../../src/plugin';
import { captcha } from '../../src/captcha';
import { makeApp } from '../support/auth-app';

declare module '../../src' {
  interface AuthErrorReasons {
    terms_required: true;
  }
}

/**
 * A plugin of the app's own, written on `authgate/plugin` alone: it hooks actions, not features.
 * `sign-in` is refused (with a code of its own) for an address that has not accepted the terms,
 * and every sign-in and invitation call is recorded as the hook sees it.
 */
function terms(accepted: Set<string>, seen: string[]): AuthPlugin {
  return {
    name: 'terms',
    errorCodes: ['terms_required'],
    setup: () => ({
      actions: {
        'sign-in': {
          async before(call: ActionCall) {
            seen.push(`before ${call.action} ${call.req ? 'req' : ''}${call.address ? `address=${call.address} method=${call.method}` : ''}`);
            if (call.address !== undefined && !accepted.has(call.address)) throw new AuthError('forbidden', 'accept the terms of service first', { reason: 'terms_required' });
          },
          async after(call, outcome) {
            seen.push(`after ${call.action} ${outcome}`);
          },
        },
        'invitation-accept': {
          async before(call) {
            seen.push(`before ${call.action} ${call.req ? 'req' : ''}`);
          },
        },
      },
    }),
  };
}

describe('hooks by action (a plugin of the app own, on authgate/plugin)', () => {
  it("sign-in's before runs when the request arrives and again with the canonical address; it refuses with the plugin's own code; after hears each outcome", async () => {
    const seen: string[] = [];
    const { app, auth } = makeApp({ plugins: [terms(new Set(['ann@example.com']), seen)] });
    const ok = await request(app).post('/auth/local/login').send({ user: 'Ann@Example.COM', passwd: 'pw' });
    expect(ok.status).toBe(200);
    expect(seen).toEqual(['before sign-in req', 'before sign-in address=ann@example.com method=password', 'after sign-in succeeded']);
    seen.length = 0;
    const wrong = await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'nope' });
    expect(wrong.status).toBe(403);
    expect(seen).toEqual(['before sign-in req', 'before sign-in address=ann@example.com method=password', 'after sign-in failed']);
    seen.length = 0;
    const refused = await request(app).post('/auth/local/login').send({ user: 'bob@example.com', passwd: 'pw' });
    expect([refused.status, refused.body.code]).toEqual([403, 'terms_required']);
    // Refused before the password was checked: no outcome to hear.
    expect(seen).toEqual(['before sign-in req', 'before sign-in address=bob@example.com method=password']);
    await auth.close();
  });

  it('the built-in CAPTCHA is such a hook: with it and the app plugin on, both run on one sign-in, each judging its part', async () => {
    const seen: string[] = [];
    const { app, auth } = makeApp({ plugins: [terms(new Set(['ann@example.com']), seen), captcha({ service: 'turnstile', secret: 'x'.repeat(20), actions: { login: { after: 1 } } })] });
    expect((await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'wrong' })).status).toBe(403);
    seen.length = 0;
    // Past one failed attempt from this IP the CAPTCHA asks, when the request arrives: the address is never judged.
    const asked = await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'pw' });
    expect([asked.status, asked.body.code]).toEqual([403, 'captcha_required']);
    expect(seen).toEqual(['before sign-in req']);
    await auth.close();
  });

  it('a plugin written before hooks by action (signInPolicy, actionGuard) is run as the same hooks', async () => {
    const seen: string[] = [];
    const older: AuthPlugin = {
      name: 'older',
      setup: () => ({
        signInPolicy: async (address, method) => {
          seen.push(`policy ${address} ${method}`);
          if (address === 'eve@example.com') throw new AuthError('forbidden', 'not eve');
        },
        actionGuard: {
          check: async (action) => void seen.push(`check ${action}`),
          failed: async (action) => void seen.push(`failed ${action}`),
          succeeded: async (action) => void seen.push(`succeeded ${action}`),
        },
      }),
    };
    const { app, auth } = makeApp({ plugins: [older] });
    expect((await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'pw' })).status).toBe(200);
    expect((await request(app).post('/auth/local/login').send({ user: 'eve@example.com', passwd: 'pw' })).status).toBe(403);
    expect(seen).toEqual(['check login', 'policy ann@example.com password', 'succeeded login', 'check login', 'policy eve@example.com password']);
    await auth.close();
  });
});

describe('one sign-in, one judgement per address', () => {
  it('a direct login whose checker gives the same address: its address is judged once, and after hears it', async () => {
    const seen: string[] = [];
    const spy: AuthPlugin = {
      name: 'spy',
      setup: () => ({
        actions: {
          'sign-in': {
            async before(call: ActionCall) {
              seen.push(`before ${call.req ? 'req' : ''}${call.address ? `address=${call.address} method=${call.method}` : ''}`);
            },
            async after(call, outcome) {
              seen.push(`after ${outcome} ${call.address ?? ''}`);
            },
          },
        },
      }),
    };
    const { app, auth } = makeApp({ plugins: [spy] }, (a) => a.addDirectProvider('mail', (user, passwd) => (passwd === 'pw' ? { subject: user, email: user } : false)));
    expect((await request(app).post('/auth/mail/login').send({ user: 'ann@example.com', passwd: 'pw' })).status).toBe(200);
    expect(seen).toEqual(['before req', 'before address=ann@example.com method=password', 'after succeeded ann@example.com']);
    await auth.close();
  });

  it("an after hook that throws is logged, and neither changes the answer nor stops the other plugins' hooks", async () => {
    const heard: string[] = [];
    const lines: string[] = [];
    const throwing: AuthPlugin = { name: 'throwing', setup: () => ({ actions: { 'sign-in': { after: async () => Promise.reject(new Error('notes store down')) } } }) };
    const listening: AuthPlugin = { name: 'listening', setup: () => ({ actions: { 'sign-in': { after: async (call, outcome) => void heard.push(`${outcome} ${call.address ?? ''}`) } } }) };
    const { app, auth } = makeApp({ plugins: [throwing, listening], logger: { logf: (format: string, ...args: unknown[]) => void lines.push([format, ...args].join(' ')) } });
    expect((await request(app).post('/auth/local/login').send({ user: 'ann@example.com', passwd: 'pw' })).status).toBe(200);
    expect(heard).toEqual(['succeeded ann@example.com']);
    expect(lines.join('\n')).toMatch(/\[WARN\] plugin %s: its after hook of %s failed: %s throwing sign-in notes store down/);
    await auth.close();
  });
});
