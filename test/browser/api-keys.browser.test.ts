import type { Browser } from 'playwright-core';
import { browserIt, signInOnPage, startBrowserExample, type BrowserExample } from '../support/example-browser';

describe('API keys on the example page in headless chromium', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    example = await startBrowserExample('127.0.0.1', 'k'.repeat(32));
    if (example) ({ base, browser } = example);
  }, 60_000);
  afterAll(() => example?.close());

  browserIt(
    'creates a key (shown once, with a curl line), the key works from outside the browser, deleting it stops it',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await signInOnPage(page, base, 'demo');
      await page.fill('#api-key-name', 'CI');
      await page.click('#create-api-key');
      await page.waitForSelector('#new-api-key:not(.hidden)');
      const key = (await page.textContent('#new-api-key-value')) ?? '';
      expect(key).toMatch(/^agk_/);
      expect(await page.textContent('#api-key-curl')).toContain(`Bearer ${key}`);
      await page.waitForFunction("document.querySelectorAll('#api-keys li.api-key').length === 1");
      expect(await page.textContent('#api-keys')).not.toContain(key);

      const whoami = await fetch(`${base}/api/whoami`, { headers: { authorization: `Bearer ${key}` } });
      expect(whoami.status).toBe(200);
      expect(await whoami.json()).toMatchObject({ user: 'demo', apiKey: { scopes: [] } });

      await page.click('#api-keys li.api-key button.delete-api-key');
      await page.waitForFunction("document.getElementById('api-keys-notice').textContent.includes('was deleted')");
      expect((await fetch(`${base}/api/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'creates a key for an organization the user owns: it acts as that organization in /workspace, listed with its roles',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await signInOnPage(page, base, 'demo');
      await page.fill('#org-name', 'Key Makers');
      await page.click('#create-org');
      await page.waitForFunction("[...document.querySelectorAll('#api-key-holder option')].some((o) => o.textContent === 'Key Makers')");
      await page.selectOption('#api-key-holder', { label: 'Key Makers' });
      await page.fill('#api-key-name', 'partner');
      await page.click('#create-api-key');
      await page.waitForSelector('#new-api-key:not(.hidden)');
      const key = (await page.textContent('#new-api-key-value')) ?? '';
      expect(await page.textContent('#api-key-curl')).toContain('/workspace');
      await page.waitForFunction("document.getElementById('api-keys').textContent.includes('for Key Makers as member')");

      const workspace = await fetch(`${base}/workspace`, { headers: { authorization: `Bearer ${key}` } });
      expect(workspace.status).toBe(200);
      expect(await workspace.json()).toMatchObject({ org: { name: 'Key Makers' }, roles: ['member'] });

      await page.click('#api-keys li.api-key button.delete-api-key');
      await page.waitForFunction("document.getElementById('api-keys-notice').textContent.includes('was deleted')");
      expect((await fetch(`${base}/workspace`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      await page.context().close();
    },
    60_000,
  );
});
