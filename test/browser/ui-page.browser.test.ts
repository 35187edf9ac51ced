import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { loggerFunc } from '../../src';
import { createUiPageApp } from '../../examples/ui-page/app';
import { browserRequired, browserUnavailableReason, launchChromium } from '../support/browser';

const run = browserUnavailableReason() && !browserRequired ? describe.skip : describe;

run('the plain-page example (npm run example:screens): the screens with an import map, under a strict CSP', () => {
  let server: http.Server;
  let base: string;
  let browser: Browser;
  const lines: string[] = [];
  let close: () => Promise<void>;

  beforeAll(async () => {
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { app, auth } = createUiPageApp({ url: base, secret: 'p'.repeat(32), logger: loggerFunc((line) => lines.push(line)) });
    server.on('request', app);
    browser = await launchChromium();
    close = async () => {
      await browser.close();
      await auth.close();
      await new Promise((resolve) => server.close(resolve));
    };
  }, 60_000);
  afterAll(() => close?.());

  it('loads with no CSP violation, signs up from the page, activates on the page from the printed link, signs in, shows the account, and resets a password from the mailed link', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => void (/Content Security Policy|Failed to resolve module/i.test(message.text()) && refused.push(message.text())));
    page.on('pageerror', (err) => void refused.push(err.message));
    await page.goto(base);
    await page.locator('authgate-sign-in h2').waitFor();
    await page.fill('authgate-sign-up input[name=email]', 'pat@example.com');
    await page.fill('authgate-sign-up input[name=password]', 'a plain page passphrase');
    await page.click('authgate-sign-up button[type=submit]');
    await page.locator('authgate-sign-up [role=status] >> text=/We sent a link to pat@example.com/').waitFor();
    const printed = lines.find((line) => line.includes('mail to pat@example.com'))!;
    const link = /(http:\/\/\S+\/active\/\S+)/.exec(printed)![1]!;
    // The activation link lands on the page, whose sign-up screen activates the account.
    expect(new URL(link).pathname).toMatch(/^\/welcome\/active\//);
    await page.goto(link);
    // The code leaves the address at once, and only a click activates.
    await page.locator('authgate-sign-up h2 >> text=Activate this account?').waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.click('authgate-sign-up button.primary');
    await page.locator('authgate-sign-up h2 >> text=Your account is active').waitFor();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'pat@example.com');
    await page.fill('authgate-sign-in input[name=password]', 'a plain page passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    await page.waitForFunction(() => document.title === 'Signed in as pat@example.com');
    await page.locator('authgate-account h3 >> text=Profile').waitFor();
    await page.locator('authgate-user-button button.user').waitFor();

    // A forgotten password: the mail's link opens the reset form filled in.
    await page.click('authgate-user-button button.user');
    await page.click('authgate-user-button >> text=Sign out');
    await page.click('authgate-sign-in >> text=Forgot your password?');
    await page.fill('authgate-sign-in input[name=email]', 'pat@example.com');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in h2 >> text=Choose a new password').waitFor();
    const resetLine = [...lines].reverse().find((line) => line.includes('#reset='))!;
    const resetLink = /(http:\/\/\S+#reset=\S+)/.exec(resetLine)![1]!;
    const other = await context.newPage();
    await other.goto(resetLink);
    expect(await other.locator('authgate-sign-in input[name=code]').inputValue()).not.toBe('');
    // It says whose password, and the code is gone from the address.
    await other.locator('authgate-sign-in >> text=For the account pat@example.com.').waitFor();
    expect(new URL(other.url()).hash).toBe('');
    await other.fill('authgate-sign-in input[name=password]', 'another plain page passphrase');
    await other.click('authgate-sign-in button[type=submit]');
    await other.locator('authgate-sign-in [role=status] >> text=Your password is changed. Sign in with it.').waitFor();
    expect(new URL(other.url()).hash).toBe('');
    expect(refused).toEqual([]);
    await context.close();
  }, 60_000);
});
