import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loggerFunc, noopLogger } from '../../src';
import { createExampleApp, DEMO_USERS, readExampleConfig } from '../../examples/server/app';
import { setCookies } from '../support/cookies';
import { IN_MEMORY } from '../support/example-browser';
import { startSmtpPeer } from '../support/smtp-peer';
import { callback, startLogin } from '../support/oauth-flow';
import { followToApp, startOidcPeer } from '../support/oidc-peer';
import { devAuthorize } from '../support/oauth-flow';
import { freePort } from '../support/ports';
import { identicon } from '../../src/core/avatar/identicon';

describe('example server', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-example-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads its configuration from the environment, with a secret made on the first start and kept for the next ones when unset', () => {
    const warnings: string[] = [];
    const file = join(dir, 'kept', 'auth-secret');
    const config = readExampleConfig({ PORT: '9999', AUTH_SECRET_FILE: file }, { logf: (f) => warnings.push(f) });
    expect(config.url).toBe('http://localhost:9999');
    expect(config.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(warnings.join()).toMatch(/AUTH_SECRET is not set: made a secret/);
    // A restart finds it: logins, second factors and sealed keys survive.
    expect(readExampleConfig({ AUTH_SECRET_FILE: file }, noopLogger).secret).toBe(config.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readExampleConfig({ AUTH_SECRET_FILE: file, STORE_TIMEOUT: '30000' }, noopLogger).storeTimeout).toBe(30_000);
    expect(() => readExampleConfig({ AUTH_SECRET_FILE: file, STORE_TIMEOUT: 'soon' }, noopLogger)).toThrow(/STORE_TIMEOUT=soon is not a number of milliseconds/);
    expect(readExampleConfig({ AUTH_SECRET: 's'.repeat(32), AUTH_URL: 'https://x.example' }, noopLogger)).toMatchObject({
      secret: 's'.repeat(32),
      url: 'https://x.example',
    });
  });

  it('sends an e-mail login link to the log without SMTP_URL, and the link logs in', async () => {
    const lines: string[] = [];
    const config = {
      ...readExampleConfig({ AUTH_SECRET: 'y'.repeat(32) }, noopLogger),
      avatarStore: dir,
      ...IN_MEMORY,
      logger: loggerFunc((l) => lines.push(l)),
    };
    const { app } = createExampleApp(config);
    await request(app).get('/auth/email/login?user=reader&address=reader@example.com&from=/').expect(200);
    const link = /(http:\/\/\S+\/auth\/email\/login\?token=\S+)/.exec(lines.join('\n'))?.[1];
    expect(link).toBeDefined();
    const res = await request(app)
      .get(new URL(link!).pathname + new URL(link!).search)
      .expect(303);
    expect(res.headers.location).toBe('/');
    expect(setCookies(res).JWT?.value).toBeTruthy();
  });

  it('sends a real mail through SMTP_URL', async () => {
    const peer = await startSmtpPeer();
    try {
      const config = readExampleConfig({ AUTH_SECRET: 'z'.repeat(32), SMTP_URL: `smtp://127.0.0.1:${peer.port}?from=login@example.org` }, noopLogger);
      const { app } = createExampleApp({
        ...config,
        avatarStore: dir,
        ...IN_MEMORY,
      });
      await request(app).get('/auth/email/login?user=mia&address=mia@example.com').expect(200);
      const mail = await peer.nextMail(0);
      expect(mail.from).toBe('login@example.org');
      expect(mail.body).toMatch(/Hello mia, open this link .*\/auth\/email\/login\?token=/);
    } finally {
      await peer.close();
    }
  });

  it('adds the OpenID Connect login "oidc" from OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET', async () => {
    const url = 'http://localhost:9090';
    const idp = await startOidcPeer([`${url}/auth/oidc/callback`], 'oscar', { tokenEndpointAuthMethod: 'client_secret_basic' });
    try {
      const env = { AUTH_SECRET: 'o'.repeat(32), AUTH_URL: url, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret };
      const { app, auth } = createExampleApp({
        ...readExampleConfig(env, noopLogger),
        avatarStore: dir,
        ...IN_MEMORY,
      });
      expect((await request(app).get('/auth/list').expect(200)).body).toContain('oidc');
      const { location, handshake } = await startLogin(app, 'oidc');
      const res = await callback(app, await followToApp(location, url), handshake).expect(200);
      expect(res.body.name).toBe('Alice Liddell');
      await auth.close();
    } finally {
      await idp.stop();
    }
    expect(readExampleConfig({ OIDC_ISSUER: 'https://x.example' }, noopLogger).oidc).toBeUndefined();
  });

  it("sends a browser on another host name to AUTH_URL's, and proxies the dev server's picture (its address allowed, no other)", async () => {
    const devPort = await freePort();
    const url = 'http://localhost:9191';
    const { app, dev, auth } = createExampleApp({
      ...readExampleConfig({ AUTH_SECRET: 'h'.repeat(32), AUTH_URL: url, DEV_AUTH_PORT: String(devPort) }, noopLogger),
      avatarStore: dir,
      ...IN_MEMORY,
      // This test's dev server is on its own port (the picture's origin is checked).
      devAuthPort: devPort,
    });
    expect(auth.options.avatarAllowedOrigins).toEqual([`http://127.0.0.1:${devPort}`]);
    const moved = await request(app).get('/some/page?x=1').set('Host', '127.0.0.1:9191').set('Accept', 'text/html').expect(307);
    expect(moved.headers.location).toBe(`${url}/some/page?x=1`);
    await request(app).get('/auth/list').set('Host', '127.0.0.1:9191').expect(200);
    await request(app).get('/').set('Host', 'localhost:9191').set('Accept', 'text/html').expect(200);
    await dev.start();
    try {
      const { location, handshake } = await startLogin(app, 'dev');
      const res = await callback(app, await devAuthorize(location, 'pictured'), handshake).expect(200);
      const avatar = await request(app)
        .get(new URL(res.body.picture as string).pathname)
        .expect(200);
      expect(avatar.headers['content-type']).toMatch(/^image\//);
      expect(Buffer.isBuffer(avatar.body) && (avatar.body as Buffer).length > 100).toBe(true);
      expect((avatar.body as Buffer).equals(identicon(res.body.id as string))).toBe(false);
    } finally {
      await dev.stop();
      await auth.close();
    }
  });

  it('answers a GET with a 346 KB body and an odd content type with JSON, over a raw socket, signed in or not (never a reset)', async () => {
    const { app } = createExampleApp({ ...readExampleConfig({ AUTH_SECRET: 'x'.repeat(32) }, noopLogger), avatarStore: dir, ...IN_MEMORY });
    const server = createServer(app).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as AddressInfo).port;
    const signedIn = setCookies(await request(app).post('/auth/local/login').send({ user: 'demo', passwd: DEMO_USERS.demo }).expect(200));
    const session = `JWT=${signedIn.JWT!.value}; XSRF-TOKEN=${signedIn['XSRF-TOKEN']!.value}`;
    const body = Buffer.alloc(346 * 1024, 'a');
    /** Sends the request whole over one connection and reads what comes back until the server closes it. */
    const raw = (path: string, contentType: string, cookie: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
          socket.end(body);
        });
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolve(answer));
      });
    try {
      for (const path of ['/account/profiles', '/auth/user', '/auth/orgs', '/auth/admin/users'])
        for (const contentType of ['application/x-odd', 'text/plain; charset=utf-9', 'multipart/form-data; boundary=x'])
          for (const cookie of ['', session]) {
            const answer = await raw(path, contentType, cookie);
            const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
            const json = /\r\ncontent-type: application\/json/i.test(answer);
            expect([path, contentType, cookie !== '', status >= 200 && status < 500, json]).toEqual([path, contentType, cookie !== '', true, true]);
          }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('serves the page, logs in with the demo account, shows the avatar, guards routes and logs out', async () => {
    const { app } = createExampleApp({
      ...readExampleConfig({ AUTH_SECRET: 'x'.repeat(32) }, noopLogger),
      avatarStore: dir,
      ...IN_MEMORY,
    });
    const page = await request(app).get('/').expect(200);
    // The page is a layout of the screens (authgate/ui), which it loads with its own script.
    expect(page.text).toContain('<authgate-sign-in');
    expect(
      (
        await request(app)
          .get('/ui.mjs')
          .expect(200)
          .expect('content-type', /javascript/)
      ).text,
    ).toContain('authgate-sign-in');

    const bad = await request(app).post('/auth/local/login').send({ user: 'demo', passwd: 'wrong' }).expect(403);
    expect(bad.body.error).toBe('incorrect user or password');

    const res = await request(app).post('/auth/local/login').send({ user: 'demo', passwd: DEMO_USERS.demo }).expect(200);
    const cookies = setCookies(res);
    const cookie = `JWT=${cookies.JWT!.value}; XSRF-TOKEN=${cookies['XSRF-TOKEN']!.value}`;
    const xsrf = cookies['XSRF-TOKEN']!.value;
    const avatarPath = new URL(res.body.picture as string).pathname;
    const avatar = await request(app).get(avatarPath).expect(200);
    expect(avatar.headers['content-type']).toBe('image/png');

    await request(app).get('/private').expect(401);
    const priv = await request(app).get('/private').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(200);
    expect(priv.body.user.name).toBe('demo');
    await request(app).get('/admin').set('Cookie', cookie).set('X-XSRF-TOKEN', xsrf).expect(403);
    expect((await request(app).get('/open').expect(200)).body.user).toBeNull();

    const admin = await request(app).post('/auth/local/login').send({ user: 'admin', passwd: DEMO_USERS.admin }).expect(200);
    const ac = setCookies(admin);
    await request(app).get('/admin').set('Cookie', `JWT=${ac.JWT!.value}`).set('X-XSRF-TOKEN', ac['XSRF-TOKEN']!.value).expect(200);

    const out = await request(app).get('/auth/logout').set('Cookie', cookie).expect(200);
    expect(setCookies(out).JWT!.value).toBe('');
  });
});
