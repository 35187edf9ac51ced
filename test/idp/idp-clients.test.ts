import * as client from 'openid-client';
import request from 'supertest';
import { loggerFunc, setAdmin } from '../../src';
import { eventually } from '../support/eventually';
import { authorizeIn, Navigator, nowhere, startIdpApp, type IdpApp } from './idp-helpers';

describe('clients registered at run time by admins (POST /auth/idp/clients)', () => {
  let idp: IdpApp;
  let rp: { url: string; close(): Promise<void> };
  const logged: string[] = [];

  beforeAll(async () => {
    rp = await nowhere();
    idp = await startIdpApp(
      { clients: [] },
      {
        logger: loggerFunc((line) => void logged.push(line)),
        claimsUpdater: (claims) => {
          if (claims.user?.name === 'root') setAdmin(claims.user, true);
          return claims;
        },
      },
    );
  });
  afterAll(async () => {
    await idp?.close();
    await rp?.close();
  });

  /** A logged-in browser's API calls (cookie and XSRF header). */
  async function session(name: string): Promise<{ browser: Navigator; call(method: 'get' | 'post' | 'delete', path: string, body?: object): Promise<request.Response> }> {
    const browser = await new Navigator().login(idp, name);
    const call = (method: 'get' | 'post' | 'delete', path: string, body?: object): Promise<request.Response> => {
      const agent = request(idp.app);
      const req = agent[method](path)
        .set('Cookie', `JWT=${browser.cookies.get('JWT')}; XSRF-TOKEN=${browser.cookies.get('XSRF-TOKEN')}`)
        .set('X-XSRF-TOKEN', browser.cookies.get('XSRF-TOKEN') as string);
      return body === undefined ? req : req.send(body);
    };
    return { browser, call };
  }

  it('only admins, with a fresh login, register one; bad input changes nothing; the secret is shown once', async () => {
    const user = await session('someone');
    expect((await user.call('get', '/auth/idp/clients')).status).toBe(403);
    expect((await user.call('post', '/auth/idp/clients', { name: 'x', type: 'public', redirectUris: [`${rp.url}/cb`] })).status).toBe(403);
    const root = await session('root');
    for (const body of [
      {},
      { name: 'x', type: 'secret', redirectUris: [`${rp.url}/cb`] },
      { name: 'x', type: 'public', redirectUris: [] },
      { name: 'x', type: 'public', redirectUris: ['not a url'] },
      { name: 'x', type: 'public', redirectUris: [`${rp.url}/cb#frag`] },
      { name: 'x', type: 'public', redirectUris: [`${rp.url}/cb`], trusted: 'yes' },
      { name: 'x', type: 'confidential', redirectUris: ['javascript:alert(1)'] },
    ])
      expect((await root.call('post', '/auth/idp/clients', body)).status).toBe(400);
    expect((await root.call('get', '/auth/idp/clients')).body).toEqual([]);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60_000);
    try {
      expect((await root.call('post', '/auth/idp/clients', { name: 'late', type: 'public', redirectUris: [`${rp.url}/cb`] })).body).toMatchObject({ code: 'step_up_required' });
    } finally {
      jest.restoreAllMocks();
    }
    const made = await root.call('post', '/auth/idp/clients', { name: 'Reports', type: 'confidential', redirectUris: [`${rp.url}/cb`] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      clientId: expect.stringMatching(/^app_/),
      clientSecret: expect.any(String),
      name: 'Reports',
      trusted: false,
      createdBy: root.browser.cookies.size > 0 ? expect.any(String) : '',
    });
    expect(made.headers['cache-control']).toBe('no-store');
    const listed = (await root.call('get', '/auth/idp/clients')).body as Array<Record<string, unknown>>;
    expect(listed).toEqual([expect.objectContaining({ clientId: made.body.clientId, name: 'Reports' })]);
    expect(JSON.stringify(listed)).not.toContain(made.body.clientSecret as string);
  });

  it('a registered client signs users in (consent, since it is not trusted); deleting it ends its grants and refreshes', async () => {
    const root = await session('root');
    const made = (await root.call('post', '/auth/idp/clients', { name: 'Partner', type: 'confidential', redirectUris: [`${rp.url}/cb`] })).body as { clientId: string; clientSecret: string };
    const config = await client.discovery(new URL(idp.issuer), made.clientId, made.clientSecret, client.ClientSecretBasic(made.clientSecret), { execute: [client.allowInsecureRequests] });
    const user = await session('zoe');
    const asked = await authorizeIn(user.browser, config, `${rp.url}/cb`, { scope: 'openid offline_access', prompt: 'consent' });
    const page = await (asked.page as Response).text();
    expect(page).toContain('Partner wants to');
    expect(asked.page?.headers.get('content-security-policy')).toContain(`form-action 'self' ${rp.url}`);
    const action = /action="([^"]+)"/.exec(page)?.[1] as string;
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
    const back = await user.browser.follow(`${idp.url}${action}`, `${rp.url}/cb`, { method: 'POST', form: { csrf, decision: 'allow' } });
    const tokens = await client.authorizationCodeGrant(config, back.url as URL, { pkceCodeVerifier: asked.verifier });
    expect((await user.call('get', '/auth/apps')).body).toEqual([expect.objectContaining({ clientId: made.clientId, name: 'Partner' })]);

    expect((await user.call('delete', `/auth/idp/clients/${made.clientId}`)).status).toBe(403);
    // Deleting it ends every grant of it: a fresh login with the cookie and its XSRF header, as registering (issue 41, item 6).
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 11 * 60_000);
    try {
      expect((await root.call('delete', `/auth/idp/clients/${made.clientId}`)).body).toMatchObject({ code: 'step_up_required' });
    } finally {
      jest.restoreAllMocks();
    }
    const bearerToken = root.browser.cookies.get('JWT') as string;
    for (const carried of [{ 'X-JWT': bearerToken }, {}]) {
      const path = `/auth/idp/clients/${made.clientId}${'X-JWT' in carried ? '' : `?token=${bearerToken}`}`;
      const refused = await request(idp.app).delete(path).set(carried);
      expect([refused.status, refused.body.code]).toEqual([403, 'step_up_required']);
    }
    const noXsrf = await request(idp.app).delete(`/auth/idp/clients/${made.clientId}`).set('Cookie', `JWT=${bearerToken}`);
    expect(noXsrf.status).toBeGreaterThanOrEqual(401);
    expect((await user.call('get', '/auth/apps')).body).toHaveLength(1);
    expect((await root.call('delete', `/auth/idp/clients/${made.clientId}`)).status).toBe(200);
    expect((await root.call('delete', `/auth/idp/clients/${made.clientId}`)).status).toBe(404);
    await idp.auth.events.flush();
    const events = (await idp.auth.events.list({ types: ['idp.client.registered', 'idp.client.removed', 'idp.app.revoked'] })).events.map((e) => `${e.type}:${e.actor.kind}:${String(e.data.client)}`);
    expect(events).toEqual(expect.arrayContaining([`idp.client.registered:admin:${made.clientId}`, `idp.client.removed:admin:${made.clientId}`]));
    // The client is unknown now: 401 invalid_client (a WWW-Authenticate challenge for openid-client).
    await expect(client.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({ status: 401 });
    expect((await user.call('get', '/auth/apps')).body).toEqual([]);
  });

  it("a registered client's back-channel logout endpoint on a private address is not called (the guarded client refuses it)", async () => {
    let calls = 0;
    const receiver = await nowhere(() => void calls++);
    try {
      const root = await session('root');
      const made = (
        await root.call('post', '/auth/idp/clients', { name: 'Inside', type: 'confidential', trusted: true, redirectUris: [`${rp.url}/cb`], backchannelLogoutUri: `${receiver.url}/logout` })
      ).body as { clientId: string; clientSecret: string };
      const config = await client.discovery(new URL(idp.issuer), made.clientId, made.clientSecret, client.ClientSecretBasic(made.clientSecret), { execute: [client.allowInsecureRequests] });
      const user = await session('yuri');
      const ended = await authorizeIn(user.browser, config, `${rp.url}/cb`);
      await client.authorizationCodeGrant(config, ended.url as URL, { pkceCodeVerifier: ended.verifier });
      await user.call('get', '/auth/logout');
      await eventually(async () => expect(logged.join('\n')).toMatch(/back-channel logout of app_\S+ failed: .*private address/));
      expect(calls).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});
