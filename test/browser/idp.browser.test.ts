import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { SECOND_APP_SECRET } from '../../examples/server/app';
import { createSecondApp } from '../../examples/second-app/app';
import { SHOTS } from '../support/browser';
import { browserIt, signInWith, startBrowserExample, type BrowserExample } from '../support/example-browser';
import { freePort } from '../support/ports';

describe('single sign-on between the two example apps, in headless chromium', () => {
  let example: BrowserExample | undefined;
  let browser: Browser;
  let base: string;
  let second: string;
  let secondServer: http.Server | undefined;
  let closeSecond: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // The second app on the same host, another port (its cookies have names of their own).
    second = `http://127.0.0.1:${await freePort()}`;
    example = await startBrowserExample('127.0.0.1', 'k'.repeat(32), { SECOND_APP_URL: second });
    if (!example) return;
    ({ base, browser } = example);
    const made = createSecondApp({ url: second, issuer: `${base}/oidc`, clientSecret: SECOND_APP_SECRET, secret: 's'.repeat(32) });
    secondServer = http.createServer(made.app);
    await new Promise<void>((resolve) => secondServer?.listen(Number(new URL(second).port), '127.0.0.1', resolve));
    expect((secondServer.address() as AddressInfo).port).toBe(Number(new URL(second).port));
    closeSecond = async () => {
      await new Promise((resolve) => secondServer?.close(resolve));
      await made.auth.close();
    };
  }, 60_000);
  afterAll(async () => {
    await closeSecond?.();
    await example?.close();
  });

  browserIt(
    'signs in to the second app through the first (login page, consent), lists and takes back the app, and signs out of both',
    async () => {
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      await page.goto(`${second}/`);
      expect(await page.textContent('#who')).toContain('Not signed in');
      await page.click('#login');
      // The first app's page, asked to sign in for the other app.
      await page.locator('authgate-sign-in >> text=An app asked you to sign in here; you go back to it once you are in.').waitFor();
      await signInWith(page, 'demo', 'demo-password');
      // Back at the provider: the second app is not first-party, so the consent page asks.
      await page.waitForSelector('#allow');
      expect(await page.textContent('h1')).toContain('Second example app wants to');
      await page.screenshot({ path: join(SHOTS, 'phone-idp-consent.png') });
      await page.click('#allow');
      await page.waitForURL(`${second}/`);
      expect(await page.textContent('#who')).toContain('Signed in as demo');

      await page.goto(base);
      const apps = page.locator('authgate-account section[aria-labelledby=apps]');
      await apps.locator('li >> text=Second example app').waitFor();
      await apps.locator('li >> text=Revoke').click();
      await page.locator('authgate-account [role=status] >> text=Second example app is removed.').waitFor();
      expect(await apps.locator('li').count()).toBe(0);

      await page.goto(`${second}/`);
      await page.click('#logout');
      await page.waitForSelector('#logout');
      await page.click('#logout');
      await page.waitForURL(`${second}/`);
      expect(await page.textContent('#who')).toContain('Not signed in');
      await page.goto(base);
      await page.waitForSelector('body[data-session=signed-out]');
      await page.context().close();
    },
    90_000,
  );
});
