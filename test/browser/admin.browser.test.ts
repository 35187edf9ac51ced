import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEMO_USERS } from '../../examples/server/app';
import { SHOTS } from '../support/browser';
import { browserIt, shownUser, signedInShown, signInWith, startBrowserExample, type BrowserExample } from '../support/example-browser';

describe('the admin console in headless chromium', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    example = await startBrowserExample('127.0.0.1', 'a'.repeat(32));
    if (example) ({ base, browser } = example);
  }, 60_000);
  afterAll(() => example?.close());

  /** Polls `check` (the console allows no eval, so no waitForFunction) for up to 10 s. */
  const until = async (check: () => Promise<boolean>): Promise<void> => {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the console did not get there in 10 s');
  };

  const signIn = async (page: Page, user: string): Promise<void> => {
    await page.goto(base);
    await page.waitForSelector('body[data-session=signed-out]');
    await signInWith(page, user, DEMO_USERS[user]!);
  };

  browserIt(
    'an admin searches, opens a user, bans and unbans it, acts as it with a banner and stops; a non-admin is refused',
    async () => {
      const demo = await (await browser.newContext()).newPage();
      await signIn(demo, 'demo');
      await signedInShown(demo);
      expect(await demo.isHidden('#admin-console')).toBe(true);
      const refused = await demo.goto(`${base}/auth/admin/`);
      expect(refused?.status()).toBe(403);
      expect(await demo.isVisible('#not-admin')).toBe(true);
      expect(await demo.isHidden('#users-box')).toBe(true);

      const admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signIn(admin, 'admin');
      await signedInShown(admin);
      // The console's link looks like its neighbours, the route buttons.
      const looks = (selector: string): Promise<string> =>
        admin.$eval(selector, (el) => ['padding', 'font-size', 'background-color', 'border-radius'].map((p) => getComputedStyle(el).getPropertyValue(p)).join(' '));
      await admin.waitForSelector('#admin-console:not([hidden])');
      expect(await looks('#admin-console')).toBe(await looks('button[data-call="/admin"]'));
      // An organization for the console's list.
      await admin.fill('authgate-organization input[name=name][autocomplete=organization]', 'Ops Team');
      await admin.click('authgate-organization >> text=Create an organization');
      await admin.locator('authgate-organization h2 >> text=Ops Team').waitFor();
      await admin.click('#admin-console');
      await admin.waitForURL(`${base}/auth/admin/`);
      await admin.waitForSelector('#users tr.user-row');
      await admin.fill('#search', 'dem');
      await admin.press('#search', 'Enter');
      // The console's policy allows no eval: waits go through selectors, not page functions.
      await until(async () => (await admin.locator('#users tr.user-row').count()) === 1 && (await admin.locator('#users tr.user-row', { hasText: 'demo' }).count()) === 1);
      await admin.click('#users tr.user-row button.open-user');
      await admin.locator('#user-title', { hasText: /^demo$/ }).waitFor();
      expect(await admin.textContent('#user-sessions')).toContain('via local');
      await admin.screenshot({ path: join(SHOTS, 'admin-console.png'), fullPage: true });

      // Ban with a reason: the demo browser is signed out at once (every-request here) and cannot sign in again.
      await admin.fill('#ban-reason', 'testing the console');
      await admin.click('#ban');
      await admin.locator('#message', { hasText: 'demo is banned; 1 sessions ended' }).waitFor();
      await admin.locator('#user-facts', { hasText: 'banned (testing the console)' }).waitFor();
      await signIn(demo, 'demo');
      await demo.locator('authgate-sign-in [role=alert] >> text=/banned/').waitFor();

      await until(async () => (await admin.locator('#user-events li', { hasText: 'user.banned by admin' }).count()) === 1);
      // The operator's views: the audit log filtered to bans, organizations and their members, the identity provider's apps.
      await admin.fill('#audit-types', 'user.banned');
      await admin.click('#audit-show');
      await until(async () => (await admin.locator('#audit tr.event-row').count()) === 1);
      expect(await admin.textContent('#audit tr.event-row')).toMatch(/user\.banned by admin.*reason=testing the console/);
      await admin.fill('#audit-types', 'no.such_type');
      await admin.click('#audit-show');
      await admin.locator('#message', { hasText: 'no.such_type' }).waitFor();
      await admin.locator('#orgs tr.org-row', { hasText: 'Ops Team' }).waitFor();
      await admin.click('#orgs tr.org-row button.open-org');
      await admin.locator('#org-title', { hasText: 'Members of Ops Team' }).waitFor();
      expect(await admin.textContent('#org-members')).toMatch(/admin.*owner/);
      expect(await admin.isVisible('#apps-box')).toBe(true);
      await admin.screenshot({ path: join(SHOTS, 'admin-console-operator.png'), fullPage: true });
      await admin.click('#unban');
      await admin.locator('#message', { hasText: 'demo is no longer banned' }).waitFor();
      await demo.click('authgate-sign-in button[type=submit]');
      await signedInShown(demo);
      // Its recent activity tells what happened: the suspension and the sign-ins.
      const activity = demo.locator('authgate-account section[aria-labelledby=activity]');
      await activity.locator('li >> text=Suspended by an admin').waitFor();
      await activity.locator('li:has-text("Signed in") >> text=/local/').first().waitFor();

      // Act as demo: back on the app's page with a banner, then back to the admin's own session.
      await admin.click('#impersonate');
      await admin.waitForURL(`${base}/`);
      const acting = admin.locator('authgate-user-button [role=status]:has-text("you act as")');
      await acting.waitFor();
      expect(await shownUser(admin)).toBe('demo');
      expect(await acting.textContent()).toContain('admin, you act as demo');
      await admin.screenshot({ path: join(SHOTS, 'impersonation-banner.png') });
      // An impersonation never passes step-up: turning on two-factor is refused, and says why.
      await admin.click('authgate-account section[aria-labelledby=two-factor] >> text=Turn on');
      const alert = admin.locator('authgate-account [role=alert]');
      await admin.locator('authgate-account [role=alert] >> text=/an admin acting as this user cannot change its credentials/i').waitFor();
      await admin.click('authgate-user-button >> text=Stop acting as this user');
      await admin.locator('authgate-user-button button.user >> text=admin').waitFor();
      expect(await acting.count()).toBe(0);
      // Back as the admin, nothing of the impersonated session's page stays: no error.
      await admin.locator('authgate-account section[aria-labelledby=activity] li >> nth=0').waitFor();
      expect(await alert.textContent()).toBe('');
      // Recent activity speaks words, never raw event names.
      await admin.locator('authgate-account section[aria-labelledby=activity] li >> text=Signed in').first().waitFor();
      expect(await admin.locator('authgate-account section[aria-labelledby=activity]').textContent()).not.toMatch(/\b[a-z_]+\.[a-z_.]+\b/);

      // On a phone-sized screen, with the keyboard: search and open a user.
      const phone = await admin.context().newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(`${base}/auth/admin/`);
      await phone.waitForSelector('#users tr.user-row');
      await phone.focus('#search');
      await phone.keyboard.type('adm');
      await phone.keyboard.press('Enter');
      await until(async () => (await phone.locator('#users tr.user-row').count()) === 1 && (await phone.locator('#users tr.user-row', { hasText: 'admin' }).count()) === 1);
      // From the search field: the Search button, then the first user's name.
      await phone.keyboard.press('Tab');
      await phone.keyboard.press('Tab');
      await phone.keyboard.press('Enter');
      await phone.locator('#user-title', { hasText: /^admin$/ }).waitFor();
      await phone.screenshot({ path: join(SHOTS, 'phone-admin-console.png'), fullPage: true });
      // Nothing wider than the screen, on a phone and on a desktop.
      expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await phone.setViewportSize({ width: 1280, height: 900 });
      expect(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await demo.context().close();
      await admin.context().close();
    },
    90_000,
  );
});
