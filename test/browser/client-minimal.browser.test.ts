import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import type { Browser } from 'playwright-core';
import { clientScript } from '../../examples/server/client-bundle';
import { makeApp } from '../support/auth-app';
import { browserUnavailableReason, browserRequired, launchChromium } from '../support/browser';
import { codeInPage, clientPage, inPage, okInPage } from '../support/client-page';
import { setClock } from '../support/clock';
import { codeNow } from '../support/totp-code';

const run = browserUnavailableReason() && !browserRequired ? describe.skip : describe;
const ROOT = join(__dirname, '..', '..');

/** A React app of the test: `SessionLine` under `AuthProvider`, its client as `window.c`. */
function reactBundle(): string {
  const entry = `
    import { createElement } from 'react';
    import { createRoot } from 'react-dom/client';
    import { createAuthClient } from './src/client';
    import { AuthProvider } from './src/react';
    import { SessionLine } from './test/client/react-views';
    const client = createAuthClient();
    window.c = client;
    createRoot(document.getElementById('root')).render(createElement(AuthProvider, { client }, createElement(SessionLine)));`;
  const built = buildSync({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return built.outputFiles[0]!.text;
}

run('authgate/client and authgate/react against a minimal app (direct login and two-factor only)', () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { app } = makeApp({ url: base, credentialStore: 'memory://', twoFactor: { key: 'two-factor-key-0123456789abcdef-0123' } });
    const client = clientScript();
    const react = reactBundle();
    app.get('/client.mjs', (_req, res) => void res.type('js').send(client));
    app.get('/react.mjs', (_req, res) => void res.type('js').send(react));
    app.get('/', (_req, res) => void res.type('html').send('<!doctype html><title>app</title><div id="root"></div><script type="module" src="/react.mjs"></script>'));
    server.on('request', app);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers the routes of absent plugins with not_found, a dead server with network_error', async () => {
    const context = await browser.newContext();
    const page = await clientPage(context, base);
    await okInPage(page, "c.signIn.direct({ user: 'alice', password: 'pw' })");
    expect(await codeInPage(page, 'c.orgs.list()')).toBe('not_found');
    expect(await codeInPage(page, 'c.apiKeys.list()')).toBe('not_found');
    expect(await codeInPage(page, "c.signUp.create({ email: 'a@example.com', password: 'long enough password' })")).toBe('not_found');
    expect(await okInPage(page, 'c.sessions.list()')).toHaveLength(1);
    const dead = await page.evaluate("run(() => m.createAuthClient({ baseUrl: 'http://127.0.0.1:9' }).providers())");
    expect(dead).toMatchObject({ error: { code: 'network_error', status: 0, name: 'AuthClientError' } });
    await context.close();
  });

  it("gives the server's message in the browser's language, with the same code", async () => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await clientPage(context, base);
    expect(await inPage(page, "c.signIn.direct({ user: 'alice', password: 'wrong' })")).toMatchObject({
      error: { code: 'credentials_rejected', status: 403, message: 'Benutzername oder Passwort ist falsch.' },
    });
    await context.close();
  });

  it('withStepUp: a stale login asks for a code, steps up and makes the change', async () => {
    const context = await browser.newContext();
    const page = await clientPage(context, base);
    await okInPage(page, "c.signIn.direct({ user: 'bob', password: 'pw' })");
    const { secret } = await okInPage<{ secret: string }>(page, 'c.twoFactor.enroll()');
    const { recoveryCodes } = await okInPage<{ recoveryCodes: string[] }>(page, `c.twoFactor.confirm('${codeNow(secret)}')`);
    // The login grows older than stepUpMaxAge (10 minutes).
    setClock(Math.floor(Date.now() / 1000) + 11 * 60);
    try {
      expect(await codeInPage(page, `c.twoFactor.disable('${recoveryCodes[0]}')`)).toBe('step_up_required');
      const asked = await page.evaluate(`(async () => {
        let asked = 0;
        const done = await c.withStepUp(() => c.twoFactor.disable(${JSON.stringify(recoveryCodes[1])}), async () => (asked++, ${JSON.stringify(recoveryCodes[2])}));
        return { asked, done };
      })()`);
      expect(asked).toEqual({ asked: 1, done: { enabled: false } });
    } finally {
      jest.useRealTimers();
    }
    await context.close();
  });

  it('withStepUp: a user without a second factor is never asked for a code and gets step_up_required; a wrong code is second_factor_wrong', async () => {
    const context = await browser.newContext();
    const page = await clientPage(context, base);
    await okInPage(page, "c.signIn.direct({ user: 'nell', password: 'pw' })");
    setClock(Math.floor(Date.now() / 1000) + 11 * 60);
    try {
      const outcome = await page.evaluate(`(async () => {
        let asked = 0;
        const error = await c.withStepUp(() => c.twoFactor.enroll(), async () => (asked++, '123456')).then(() => undefined, (e) => e.code);
        return { asked, error };
      })()`);
      expect(outcome).toEqual({ asked: 0, error: 'step_up_required' });
    } finally {
      jest.useRealTimers();
    }
    const other = await clientPage(await browser.newContext(), base);
    await okInPage(other, "c.signIn.direct({ user: 'otto', password: 'pw' })");
    const { secret } = await okInPage<{ secret: string }>(other, 'c.twoFactor.enroll()');
    expect(await codeInPage(other, "c.twoFactor.confirm('000000')")).toBe('second_factor_wrong');
    await okInPage(other, `c.twoFactor.confirm('${codeNow(secret)}')`);
    setClock(Math.floor(Date.now() / 1000) + 11 * 60);
    try {
      expect(await codeInPage(other, "c.withStepUp(() => c.twoFactor.disable('000000'), async () => '000000')")).toBe('second_factor_wrong');
    } finally {
      jest.useRealTimers();
    }
    await context.close();
  });

  it('React: useSession follows sign-in and sign-out, useOrganization reports the missing plugin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(base);
    await page.waitForFunction("document.getElementById('state')?.textContent === 'signed-out - orgs:ready:0'");
    await page.evaluate("c.signIn.direct({ user: 'carol', password: 'pw' })");
    await page.waitForFunction("document.getElementById('state').textContent === 'signed-in carol orgs:error:not_found:0'");
    // Another tab signs out: this one follows without a reload.
    const other = await clientPage(context, base);
    await okInPage(other, 'c.signOut()');
    await page.waitForFunction("document.getElementById('state').textContent === 'signed-out - orgs:ready:0'");
    await context.close();
  });
});
