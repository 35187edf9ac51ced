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

/** Signs a demo user in on the example page with the direct form and waits for the signed-in view. */
export async function signInOnPage(page: Page, base: string, user: keyof typeof DEMO_USERS & string): Promise<void> {
  await page.goto(base);
  await page.fill('#user', user);
  await page.fill('#passwd', DEMO_USERS[user]!);
  await page.click('#direct-login');
  await page.waitForSelector('#logged-in:not(.hidden)');
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

/** Signs up on the page (left on its sign-up form) without opening the activation link; the link. */
export async function signUpOnPage(example: BrowserExample, page: Page, email: string, pwd: string): Promise<string> {
  const mark = example.logLines.length;
  await page.click('#signup-box summary');
  await page.fill('#signup-email', email);
  await page.fill('#signup-pwd', pwd);
  await page.click('#signup');
  await page.waitForFunction("document.getElementById('output').textContent.includes('activation')");
  return fromLog(example, /(http:\/\/\S+\/account\/active\/\S+)/, mark);
}

/** Signs up on the page and opens the mailed activation link (its landing page says the account is active). */
export async function signUpAndActivate(example: BrowserExample, page: Page, email: string, pwd: string): Promise<void> {
  await page.goto(await signUpOnPage(example, page, email, pwd));
  await page.waitForFunction("document.getElementById('title').textContent === 'Account activated'");
}

/** Signs in with the account card's e-mail and password. */
export async function accountSignIn(page: Page, email: string, pwd: string): Promise<void> {
  await page.fill('#account-email', email);
  await page.fill('#account-pwd', pwd);
  await page.click('#account-login');
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
