import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { hashId, type User } from '../../src';
import { makeApp } from '../support/auth-app';
import { startLogin } from '../support/oauth-flow';

/** A provider's token and user-info endpoints whose answers each test picks. */
async function hostileProvider(): Promise<{ url: string; token: { body: string | Buffer }; info: { body: string }; close(): Promise<void> }> {
  const token = { body: JSON.stringify({ access_token: 'at-1', token_type: 'bearer' }) as string | Buffer };
  const info = { body: JSON.stringify({ id: '42', name: 'Ann' }) };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      res.end(req.url === '/token' ? token.body : info.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, token, info, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('an OAuth2 login against a provider and a browser that misbehave', () => {
  let provider: Awaited<ReturnType<typeof hostileProvider>>;
  beforeAll(async () => void (provider = await hostileProvider()));
  afterAll(() => provider.close());

  /** An app with one custom provider whose mapUser passes the user info on as it is, as apps often do. */
  function app() {
    return makeApp({}, (auth) =>
      auth.addCustomProvider(
        'acme',
        { cid: 'c', csecret: 's' },
        {
          authUrl: `${provider.url}/authorize`,
          tokenUrl: `${provider.url}/token`,
          infoUrl: `${provider.url}/info`,
          mapUser: (info) => {
            const { id, name } = info as { id: string; name: unknown };
            return { id: hashId('acme', id), name, picture: '' } as User;
          },
        },
      ),
    );
  }

  async function callbackWith(made: ReturnType<typeof app>, params: Record<string, string>): Promise<request.Response> {
    const { location, handshake } = await startLogin(made.app, 'acme');
    const state = location.searchParams.get('state') ?? '';
    return request(made.app)
      .get(`/auth/acme/callback?${new URLSearchParams({ state, ...params })}`)
      .set('Cookie', `JWT=${handshake}`);
  }

  it('refuses a user with a name that is no text (502), and stores nothing of it: the next login with a good one works', async () => {
    const made = app();
    provider.info.body = JSON.stringify({ id: '42', name: { first: 'Ann' } });
    const bad = await callbackWith(made, { code: 'c1' });
    expect([bad.status, bad.body.code]).toEqual([502, 'bad_gateway']);
    expect(await made.auth.users.get(hashId('acme', '42'))).toBeUndefined();
    provider.info.body = JSON.stringify({ id: '42', name: 'Ann' });
    const good = await callbackWith(made, { code: 'c2' });
    expect([good.status, good.body.name]).toEqual([200, 'Ann']);
    await made.auth.close();
  });

  it('answers an empty code as no code (403), not as an outage', async () => {
    const made = app();
    const res = await callbackWith(made, { code: '' });
    expect([res.status, res.body.error]).toEqual([403, 'the OAuth2 callback carried no code']);
    await made.auth.close();
  });

  it("repeats at most 200 characters of the provider's error_description, on one line", async () => {
    const made = app();
    const res = await callbackWith(made, { error: 'access_denied', error_description: `Please log in again at https://evil.example/\n${'x'.repeat(5000)}` });
    expect(res.status).toBe(403);
    expect(res.body.error).not.toContain('\n');
    expect(res.body.error.length).toBeLessThan(240);
    await made.auth.close();
  });

  it('refuses a token response over 1 MiB (502) without holding it', async () => {
    const made = app();
    provider.token.body = JSON.stringify({ access_token: 'at-1', token_type: 'bearer', padding: 'x'.repeat(2 * 1024 * 1024) });
    const res = await callbackWith(made, { code: 'c3' });
    expect([res.status, res.body.error]).toEqual([502, expect.stringMatching(/larger than/)]);
    provider.token.body = JSON.stringify({ access_token: 'at-1', token_type: 'bearer' });
    await made.auth.close();
  });

  it('answers a token response without access_token, or with an error body, as the provider refusing or failing, never as unreachable', async () => {
    const made = app();
    provider.token.body = JSON.stringify({ token_type: 'bearer' });
    const missing = await callbackWith(made, { code: 'c4' });
    expect([missing.status, missing.body.error]).toEqual([502, 'the provider answered the code exchange in a way authgate refuses']);
    provider.token.body = JSON.stringify({ error: 'invalid_grant' });
    const refused = await callbackWith(made, { code: 'c5' });
    expect(refused.status).toBe(403);
    provider.token.body = JSON.stringify({ access_token: 'at-1', token_type: 'bearer' });
    await made.auth.close();
  });
});
