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

  it('loads with no CSP violation, signs up from the page, activates from the printed link, signs in and shows the account', async () => {
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
    expect((await page.request.get(link)).status()).toBe(200);
    await page.fill('authgate-sign-in input[name=user]', 'pat@example.com');
    await page.fill('authgate-sign-in input[name=password]', 'a plain page passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    await page.waitForFunction(() => document.title === 'Signed in as pat@example.com');
    await page.locator('authgate-account h3 >> text=Profile').waitFor();
    await page.locator('authgate-user-button button.user').waitFor();
    expect(refused).toEqual([]);
    await context.close();
  }, 60_000);
});
