import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEMO_USERS } from '../../examples/server/app';
import { SHOTS } from '../support/browser';
import { browserIt, startBrowserExample, type BrowserExample } from '../support/example-browser';

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
    await page.waitForSelector('#logged-out:not(.hidden)');
    await page.fill('#user', user);
    await page.fill('#passwd', DEMO_USERS[user]!);
    await page.click('#direct-login');
  };

  browserIt(
    'an admin searches, opens a user, bans and unbans it, acts as it with a banner and stops; a non-admin is refused',
    async () => {
      const demo = await (await browser.newContext()).newPage();
      await signIn(demo, 'demo');
      await demo.waitForSelector('#logged-in:not(.hidden)');
      expect(await demo.isHidden('#admin-console')).toBe(true);
      const refused = await demo.goto(`${base}/auth/admin/`);
      expect(refused?.status()).toBe(403);
      expect(await demo.isVisible('#not-admin')).toBe(true);
      expect(await demo.isHidden('#users-box')).toBe(true);

      const admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signIn(admin, 'admin');
      await admin.waitForSelector('#logged-in:not(.hidden)');
      // The console's link looks like its neighbours, the small secondary buttons.
      const looks = (selector: string): Promise<string> =>
        admin.$eval(selector, (el) => ['padding', 'font-size', 'background-color', 'border-radius'].map((p) => getComputedStyle(el).getPropertyValue(p)).join(' '));
      expect(await looks('#admin-console')).toBe(await looks('#call-admin'));
      // An organization for the console's list.
      await admin.fill('#org-name', 'Ops Team');
      await admin.click('#create-org');
      await admin.waitForFunction("document.getElementById('org-title').textContent === 'Members of Ops Team'");
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
      await demo.goto(base);
      await demo.waitForSelector('#logged-out:not(.hidden)');
      await demo.fill('#user', 'demo');
      await demo.fill('#passwd', DEMO_USERS.demo!);
      await demo.click('#direct-login');
      await demo.waitForFunction("document.getElementById('direct-error').textContent.includes('banned')");

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
      await demo.click('#direct-login');
      await demo.waitForSelector('#logged-in:not(.hidden)');
      // Its recent activity tells what happened: the suspension and the sign-ins.
      await demo.waitForFunction(
        "document.getElementById('activity').textContent.includes('Suspended by an admin') && document.getElementById('activity').textContent.includes('Signed in via local')",
      );

      // Act as demo: back on the app's page with a banner, then back to the admin's own session.
      await admin.click('#impersonate');
      await admin.waitForURL(`${base}/`);
      await admin.waitForSelector('#impersonation:not(.hidden)');
      expect(await admin.textContent('#user-name')).toBe('demo');
      expect(await admin.textContent('#impersonation-text')).toContain('admin, you act as demo');
      await admin.screenshot({ path: join(SHOTS, 'impersonation-banner.png') });
      // An impersonation never passes step-up: turning on two-factor asks to confirm it is you.
      await admin.click('#enroll-2fa');
      await admin.waitForSelector('#step-up:not(.hidden)');
      expect(await admin.textContent('#error')).not.toBe('');
      await admin.click('#stop-impersonation');
      await admin.waitForSelector('#impersonation.hidden', { state: 'attached' });
      await admin.waitForFunction("document.getElementById('user-name').textContent === 'admin'");
      // Back as the admin, nothing of the impersonated session's page stays: no step-up card, no error.
      expect(await admin.isHidden('#step-up')).toBe(true);
      expect(await admin.textContent('#error')).toBe('');
      // Recent activity speaks words, never raw event names.
      await admin.waitForFunction("document.getElementById('activity').textContent.includes('Signed in')");
      expect(await admin.textContent('#activity')).not.toMatch(/\b[a-z_]+\.[a-z_.]+\b/);

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
      await demo.context().close();
      await admin.context().close();
    },
    90_000,
  );
});
