import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { loggerFunc } from '../../src';
import { createExampleApp, DEMO_USERS, readExampleConfig } from '../../examples/server/app';
import { startSsoDemo } from '../../examples/server/sso-demo';
import { freePort } from './ports';
import { testCertificate } from './tls';
import { browserRequired, browserUnavailableReason, launchChromium, SHOTS } from './browser';

/** The example app on 127.0.0.1 and headless chromium, for the browser tests. */
export interface BrowserExample {
  /** The page's origin (`AUTH_URL`). */
  base: string;
  browser: Browser;
  /** What the example logged (mails go there without SMTP_URL). */
  logLines: string[];
  close(): Promise<void>;
}

const unavailable = browserUnavailableReason();
if (unavailable && !browserRequired) console.warn(`browser tests skipped: ${unavailable}`);

/** `it`, or `it.skip` when chromium is missing and not required (CI requires it). */
export const browserIt: jest.It = unavailable && !browserRequired ? it.skip : it;

/** The example's stores kept in memory and its dev server on a free port: what an in-process test starts it with. */
export const IN_MEMORY = {
  devAuthPort: 0,
  accountStore: 'memory://',
  credentialStore: 'memory://',
  orgStore: 'memory://',
  ssoStore: 'memory://',
  scimStore: 'memory://',
  auditStore: 'memory://',
} as const;

/**
 * Starts the example (memory account and credential stores, a dev server on a free port) and
 * chromium. `host` is the name the page is opened by: `localhost` for passkeys (browsers refuse
 * an IP address as a relying party); `env` adds to the example's environment. `undefined` when the
 * browser tests are skipped.
 */
export async function startBrowserExample(
  host: '127.0.0.1' | 'localhost',
  secret: string,
  env: NodeJS.ProcessEnv = {},
  options: { ssoDemo?: boolean; https?: boolean } = {},
): Promise<BrowserExample | undefined> {
  if (unavailable && !browserRequired) return undefined;
  if (unavailable) throw new Error(`AUTHGATE_REQUIRE_BROWSER=1 but ${unavailable}`);
  const dir = await mkdtemp(join(tmpdir(), 'authgate-browser-'));
  // Over https the app and the IdP have certificates of their own (self-signed: the test's browser context accepts them).
  const server = options.https ? https.createServer(testCertificate(host)) : http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `${options.https ? 'https' : 'http'}://${host}:${(server.address() as AddressInfo).port}`;
  const logLines: string[] = [];
  const config = {
    ...readExampleConfig(
      { AUTH_SECRET: secret, AUTH_URL: base, ...env },
      loggerFunc((line) => logLines.push(line)),
    ),
    avatarStore: dir,
  };
  // The SSO demo: its customer IdP and DNS on free ports, set up as the example's start does.
  const demo = options.ssoDemo ? await startSsoDemo(await freePort(), join(dir, 'customer-idp.json'), options.https ? testCertificate('127.0.0.1') : undefined) : undefined;
  const example = createExampleApp({
    ...config,
    ...demo?.config,
    ...IN_MEMORY,
  });
  await example.dev.start();
  await demo?.setUp(example, `${base}/auth`);
  server.on('request', example.app);
  const browser = await launchChromium();
  await mkdir(SHOTS, { recursive: true });
  return {
    base,
    browser,
    logLines,
    close: async () => {
      await browser.close();
      await example.dev.stop();
      await demo?.close();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the example page shows the screens of a signed-in session. */
export async function signedInShown(page: Page): Promise<void> {
  await page.waitForSelector('body[data-session=signed-in]');
}

/** Signs in on the example page's sign-in screen with a user name or e-mail address and a password. */
export async function signInWith(page: Page, user: string, password: string): Promise<void> {
  await page.fill('authgate-sign-in input[name=user]', user);
  await page.fill('authgate-sign-in input[name=password]', password);
  await page.click('authgate-sign-in button[type=submit]');
}

/** Signs a demo user in on the example page and waits for the signed-in view. */
export async function signInOnPage(page: Page, base: string, user: keyof typeof DEMO_USERS & string): Promise<void> {
  await page.goto(base);
  await signInWith(page, user, DEMO_USERS[user]!);
  await signedInShown(page);
}

/** The name the user button shows (who is signed in). */
export async function shownUser(page: Page): Promise<string> {
  const button = page.locator('authgate-user-button button.user');
  await button.waitFor();
  return ((await button.textContent()) ?? '').trim();
}

/** Signs out with the user button and waits for the signed-out view. */
export async function signOutOnPage(page: Page): Promise<void> {
  await page.click('authgate-user-button button.user');
  await page.click('authgate-user-button >> text=Sign out');
  await page.waitForSelector('body[data-session=signed-out]');
}

/** What a GET of `path` answers the page's session (with the XSRF header, as a script of the page sends it). */
export async function pageJson<T = unknown>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (at) => {
    const xsrf = /(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '';
    return (await fetch(at, { headers: { 'X-XSRF-TOKEN': decodeURIComponent(xsrf) } })).json() as Promise<T>;
  }, path);
}

/** The signed-in user as `GET /auth/user` answers the page (its id is not on the page). */
export function whoAmI(page: Page): Promise<{ id: string; name: string; picture?: string }> {
  return pageJson(page, '/auth/user');
}

/** Presses the routes card's button for `path` and the answer it shows (status, path, body). */
export async function callOnPage(page: Page, path: string): Promise<string> {
  await page.evaluate(() => (document.getElementById('output')!.textContent = ''));
  await page.click(`button[data-call="${path}"]`);
  await page.waitForFunction(() => (document.getElementById('output')?.textContent ?? '') !== '');
  return (await page.textContent('#output')) ?? '';
}

/** The first match of `pattern` in what the example logged since line `after` (mails go to the log without SMTP_URL). */
export async function fromLog(example: BrowserExample, pattern: RegExp, after: number): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const found = pattern.exec(example.logLines.slice(after).join('\n'))?.[1];
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing like ${pattern} in the log`);
}

/** Signs up on the page's sign-up screen without opening the activation link; the link. */
export async function signUpOnPage(example: BrowserExample, page: Page, email: string, pwd: string): Promise<string> {
  const mark = example.logLines.length;
  await page.fill('authgate-sign-up input[name=email]', email);
  await page.fill('authgate-sign-up input[name=password]', pwd);
  await page.click('authgate-sign-up button[type=submit]');
  await page.locator('authgate-sign-up h2 >> text=Check your mail').waitFor();
  return fromLog(example, /(https?:\/\/\S+\/account\/active\/\S+)/, mark);
}

/** Signs up on the page and opens the mailed activation link, where a click activates the account. */
export async function signUpAndActivate(example: BrowserExample, page: Page, email: string, pwd: string): Promise<void> {
  await page.goto(await signUpOnPage(example, page, email, pwd));
  await page.click('authgate-sign-up button.primary');
  await page.locator('authgate-sign-up h2 >> text=Your account is active').waitFor();
}

/** A virtual authenticator (DevTools protocol) on the page: a platform passkey store that verifies the user. */
export async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}
