import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthClient } from '../../src/client';
import { captcha } from '../../src/captcha';
import { makeApp } from '../support/auth-app';
import { startCaptchaPeer, type CaptchaPeer } from '../support/captcha-peer';

describe('authgate/client and a CAPTCHA the server asks for', () => {
  let peer: CaptchaPeer;
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    peer = await startCaptchaPeer('client-captcha-secret');
    const { app } = makeApp({
      plugins: [captcha({ service: 'turnstile', secret: 'client-captcha-secret', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: 'always' } })],
    });
    server = http.createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await peer.close();
  });

  it('asks the captcha option for a token on captcha_required and sends the call once more with it, once', async () => {
    peer.issue('client-token', { hostname: '127.0.0.1', action: 'login' });
    const asked: string[] = [];
    const client = createAuthClient({
      baseUrl: base,
      captcha: async (call) => {
        asked.push(`${call.method} ${call.path}`);
        return 'client-token';
      },
    });
    const result = await client.signIn.direct({ user: 'cy', password: 'pw' });
    expect([result.status, asked]).toEqual(['signed-in', ['POST /auth/local/login']]);
    // A token the service refuses is not asked for again: the refusal is thrown.
    const refused = createAuthClient({ baseUrl: base, captcha: async () => 'not-issued' });
    await expect(refused.signIn.direct({ user: 'cy', password: 'pw' })).rejects.toMatchObject({ code: 'captcha_invalid' });
    // Without the option, captcha_required is thrown as before.
    await expect(createAuthClient({ baseUrl: base }).signIn.direct({ user: 'cy', password: 'pw' })).rejects.toMatchObject({ code: 'captcha_required', status: 403 });
  });
});
