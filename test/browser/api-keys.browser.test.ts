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
    'creates a key on the account screen (shown once, gone with Done), the key works from outside the browser, removing it stops it',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await signInOnPage(page, base, 'demo');
      const keys = page.locator('authgate-account section[aria-labelledby=api-keys]');
      await keys.locator('input[name=name]').fill('CI');
      await keys.locator('button[type=submit]').click();
      const key = (await keys.locator('code.secret').textContent()) ?? '';
      expect(key).toMatch(/^agk_/);
      await keys.locator('text=Done').click();
      // "Done" draws the part again without the secret.
      await keys.locator('code.secret').waitFor({ state: 'detached' });
      await keys.locator('li >> text=/^CI/').waitFor();
      expect(await keys.textContent()).not.toContain(key);

      const whoami = await fetch(`${base}/api/whoami`, { headers: { authorization: `Bearer ${key}` } });
      expect(whoami.status).toBe(200);
      expect(await whoami.json()).toMatchObject({ user: 'demo', apiKey: { scopes: [] } });

      await keys.locator('li >> text=Remove').click();
      await page.locator('authgate-account [role=status] >> text=CI is removed.').waitFor();
      expect((await fetch(`${base}/api/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'creates a key on the organization screen of an organization the user owns: it acts as that organization in /workspace, listed with its roles',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await signInOnPage(page, base, 'demo');
      await page.fill('authgate-organization input[name=name][autocomplete=organization]', 'Key Makers');
      await page.click('authgate-organization >> text=Create an organization');
      await page.locator('authgate-organization h2 >> text=Key Makers').waitFor();
      const keys = page.locator('authgate-organization section[aria-labelledby=api-keys]');
      await keys.locator('input[name=name]').fill('partner');
      await keys.locator('button[type=submit]').click();
      const key = (await keys.locator('code.secret').textContent()) ?? '';
      expect(key).toMatch(/^agk_/);
      await keys.locator('text=Done').click();
      // "Done" draws the part again without the secret.
      await keys.locator('code.secret').waitFor({ state: 'detached' });
      await keys.locator('li:has-text("partner") >> text=/member/').waitFor();
      // The person's own keys stay apart.
      expect(await page.locator('authgate-account section[aria-labelledby=api-keys] li').count()).toBe(0);

      const workspace = await fetch(`${base}/workspace`, { headers: { authorization: `Bearer ${key}` } });
      expect(workspace.status).toBe(200);
      expect(await workspace.json()).toMatchObject({ org: { name: 'Key Makers' }, roles: ['member'] });

      await keys.locator('li >> text=Remove').click();
      await page.locator('authgate-organization [role=status] >> text=partner is removed.').waitFor();
      expect((await fetch(`${base}/workspace`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      await page.context().close();
    },
    60_000,
  );
});
