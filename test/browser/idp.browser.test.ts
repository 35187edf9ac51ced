import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { SECOND_APP_SECRET } from '../../examples/server/app';
import { createSecondApp } from '../../examples/second-app/app';
import { SHOTS } from '../support/browser';
import { browserIt, startBrowserExample, type BrowserExample } from '../support/example-browser';
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
      await page.waitForSelector('#idp-login:not(.hidden)');
      await page.fill('#user', 'demo');
      await page.fill('#passwd', 'demo-password');
      await page.click('#direct-login');
      // Back at the provider: the second app is not first-party, so the consent page asks.
      await page.waitForSelector('#allow');
      expect(await page.textContent('h1')).toContain('Second example app wants to');
      await page.screenshot({ path: join(SHOTS, 'phone-idp-consent.png') });
      await page.click('#allow');
      await page.waitForURL(`${second}/`);
      expect(await page.textContent('#who')).toContain('Signed in as demo');

      await page.goto(base);
      await page.waitForSelector('#apps li.app');
      expect(await page.textContent('#apps')).toContain('Second example app');
      await page.click('#apps li.app button.revoke-app');
      await page.waitForFunction("document.getElementById('apps-notice').textContent.includes('can no longer act for you')");

      await page.goto(`${second}/`);
      await page.click('#logout');
      await page.waitForSelector('#logout');
      await page.click('#logout');
      await page.waitForURL(`${second}/`);
      expect(await page.textContent('#who')).toContain('Not signed in');
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.context().close();
    },
    90_000,
  );
});
