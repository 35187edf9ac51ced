import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEMO_USERS } from '../../examples/server/app';
import { SHOTS } from '../support/browser';
import { browserIt, callOnPage, shownUser, signedInShown, signInWith, signOutOnPage, startBrowserExample, virtualAuthenticator, type BrowserExample } from '../support/example-browser';
import { readQrCode } from '../support/qr-code';
import { totpCode } from '../support/totp-code';

describe('passkeys and two-factor on the example page in headless chromium', () => {
  let example: BrowserExample | undefined;
  let other: http.Server | undefined;
  let base: string;
  let otherBase: string;
  let browser: Browser;

  beforeAll(async () => {
    // localhost, not 127.0.0.1: browsers refuse an IP address as a passkey's relying party.
    example = await startBrowserExample('localhost', 'p'.repeat(32));
    if (!example) return;
    ({ base, browser } = example);
    // Another origin of the same host: a page there can make passkey answers for "localhost" too.
    other = http.createServer((_req, res) => void res.end('<!doctype html><title>other</title>'));
    await new Promise<void>((resolve) => other?.listen(0, '127.0.0.1', resolve));
    otherBase = `http://localhost:${(other.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
    await example?.close();
  });

  const logInDirect = async (page: Page, user: string): Promise<void> => {
    await page.goto(base);
    await page.waitForSelector('body[data-session=signed-out]');
    await signInWith(page, user, DEMO_USERS[user]!);
  };

  browserIt(
    'adds a passkey on the page, logs out, logs in with it; refuses a replayed answer, a used challenge, another origin and a foreign passkey',
    async () => {
      const page = await (await browser.newContext()).newPage();
      const { cdp, authenticatorId } = await virtualAuthenticator(page);
      await logInDirect(page, 'demo');
      await signedInShown(page);
      const passkeys = page.locator('authgate-account section[aria-labelledby=passkeys]');
      await passkeys.locator('text=Add a passkey').click();
      await passkeys.locator('li').waitFor();
      await passkeys.screenshot({ path: join(SHOTS, 'passkeys.png') });
      await signOutOnPage(page);

      // Capture the browser's answer on its way to the server.
      let captured: string | undefined;
      page.on('request', (r) => {
        if (r.url().endsWith('/auth/passkey/login') && r.postData()?.includes('"response"')) captured = r.postData() ?? undefined;
      });
      await page.click('authgate-sign-in >> text=Sign in with a passkey');
      expect(await shownUser(page)).toBe('demo');
      expect(captured).toBeDefined();
      const post = (body: string): Promise<{ status: number; error?: string }> =>
        page.evaluate(
          `fetch('/auth/passkey/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: ${JSON.stringify(body)} }).then(async (r) => ({ status: r.status, error: (await r.json()).error }))`,
        );
      expect((await post(captured!)).status).toBe(403);
      // A fresh challenge: the captured answer signed another one.
      await post('{}');
      expect((await post(captured!)).status).toBe(403);

      // One challenge, two good answers: the second (with the challenge cookie put back) finds it used.
      await page.evaluate(
        "fetch('/auth/passkey/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then((r) => r.json()).then((o) => { window.lastOptions = o; })",
      );
      const challengeCookie = (await page.context().cookies()).find((c) => c.name === 'PASSKEY-TOKEN')!;
      const answerOnce =
        "SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: window.lastOptions }).then((response) => fetch('/auth/passkey/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ response }) })).then(async (r) => ({ status: r.status, error: (await r.json()).error }))";
      expect(((await page.evaluate(answerOnce)) as { status: number }).status).toBe(200);
      await page.context().addCookies([challengeCookie]);
      const used = (await page.evaluate(answerOnce)) as { status: number; error: string };
      expect(used.status).toBe(403);
      expect(used.error).toMatch(/used already/);

      // The same passkey on a page of another origin: its answer names that origin and is refused.
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      const foreignPage = await (await browser.newContext()).newPage();
      const foreign = await virtualAuthenticator(foreignPage);
      await foreign.cdp.send('WebAuthn.addCredential', { authenticatorId: foreign.authenticatorId, credential: credentials[0]! });
      const options = (await page.evaluate("fetch('/auth/passkey/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then((r) => r.json())")) as Record<
        string,
        unknown
      >;
      await foreignPage.goto(otherBase);
      await foreignPage.addScriptTag({ url: `${base}/auth/passkey/client.js` });
      const elsewhere = await foreignPage.evaluate(`SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: ${JSON.stringify(options)} })`);
      const wrongOrigin = await post(JSON.stringify({ response: elsewhere }));
      expect(wrongOrigin.status).toBe(403);
      expect(wrongOrigin.error).toMatch(/origin/i);

      // A passkey for "localhost" the server never registered.
      const stranger = await (await browser.newContext()).newPage();
      const unknown = await virtualAuthenticator(stranger);
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
      await unknown.cdp.send('WebAuthn.addCredential', {
        authenticatorId: unknown.authenticatorId,
        credential: { credentialId: randomBytes(16).toString('base64'), isResidentCredential: true, rpId: 'localhost', privateKey: key, userHandle: randomBytes(16).toString('base64'), signCount: 0 },
      });
      await stranger.goto(base);
      await stranger.waitForSelector('body[data-session=signed-out]');
      await stranger.click('authgate-sign-in >> text=Sign in with a passkey');
      await stranger.locator('authgate-sign-in [role=alert] >> text=/not registered/').waitFor();
      expect(await stranger.getAttribute('body', 'data-session')).toBe('signed-out');
      await Promise.all([page.context().close(), foreignPage.context().close(), stranger.context().close()]);
    },
    90_000,
  );

  browserIt(
    'turns two-factor on with the QR code page, then a login asks for the code and completes with it',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await logInDirect(page, 'admin');
      await signedInShown(page);
      const part = page.locator('authgate-account section[aria-labelledby=two-factor]');
      await part.locator('text=Off: signing in asks for no code.').waitFor();
      await part.locator('text=Turn on').click();
      const qr = part.locator('img');
      await qr.waitFor();
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
      await part.screenshot({ path: join(SHOTS, 'two-factor-enrolment.png') });
      const secret = (await part.locator('p code').textContent()) ?? '';
      expect(await readQrCode(await qr.screenshot())).toMatch(new RegExp(`^otpauth://totp/.*[?&]secret=${secret}(&|$)`));
      const now = Math.floor(Date.now() / 1000);
      if (now % 30 > 26) await new Promise((r) => setTimeout(r, (31 - (now % 30)) * 1000));
      await part.locator('input[name=code]').fill(totpCode(secret, Math.floor(Date.now() / 1000)));
      await part.locator('button[type=submit]').click();
      await part.locator('ul.codes li >> nth=0').waitFor();
      expect((await part.locator('ul.codes li').allTextContents()).filter((l) => /^[0-9a-f]{5}-[0-9a-f]{5}$/.test(l))).toHaveLength(10);
      await part.locator('button >> text=I saved them').click();
      await part.locator('text=On. 10 recovery codes left.').waitFor();
      await signOutOnPage(page);

      await logInDirect(page, 'admin');
      const code = page.locator('authgate-sign-in input[name=code]');
      await code.waitFor();
      await page.screenshot({ path: join(SHOTS, 'second-factor.png') });
      expect(await page.getAttribute('body', 'data-session')).toBe('signed-out');
      await code.fill('000000');
      await page.click('authgate-sign-in button[type=submit]');
      await page.locator('authgate-sign-in [role=alert]:not(:empty)').waitFor();
      await code.fill(totpCode(secret, Math.floor(Date.now() / 1000) + 30));
      await page.click('authgate-sign-in button[type=submit]');
      expect(await shownUser(page)).toBe('admin');
      expect(await callOnPage(page, '/admin')).toContain('admins only');
      await page.context().close();
    },
    90_000,
  );
});
