import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SHOTS } from '../support/browser';
import {
  browserIt,
  fromLog,
  shownUser,
  signedInShown,
  signInWith,
  signOutOnPage,
  signUpAndActivate,
  signUpOnPage,
  startBrowserExample,
  virtualAuthenticator,
  type BrowserExample,
} from '../support/example-browser';
import { codeNow } from '../support/totp-code';
import { turnOnTwoFactor } from '../support/ui-steps';

/** What a newcomer meets on the example page: each test is one way it used to trip them. */
describe('the example page never trips a newcomer (headless chromium)', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    // localhost: passkeys refuse an IP address.
    example = await startBrowserExample('localhost', 'n'.repeat(32));
    if (example) ({ base, browser } = example);
  }, 60_000);
  afterAll(() => example?.close());

  /** A new browser on the page, signed in with a new activated account. */
  const withAccount = async (email: string, pwd: string, viewport = { width: 1280, height: 900 }): Promise<Page> => {
    const page = await (await browser.newContext({ viewport })).newPage();
    await page.goto(base);
    await signUpAndActivate(example!, page, email, pwd);
    await page.goto(base);
    await signInWith(page, email, pwd);
    await page.locator('authgate-account section[aria-labelledby=profile] input[name=FirstName]').waitFor();
    return page;
  };

  browserIt(
    'with two-factor on, one code signs in and opens the profile; on a phone the code is on the first screen',
    async () => {
      const page = await withAccount('twice@example.com', 'twice lantern pass', { width: 390, height: 844 });
      const { secret } = await turnOnTwoFactor(page);
      await signOutOnPage(page);
      await page.evaluate('window.scrollTo(0, 0)');
      await signInWith(page, 'twice@example.com', 'twice lantern pass');
      const code = page.locator('authgate-sign-in input[name=code]');
      await code.waitFor();
      // The code's field starts within the first screen of the page, and has the focus.
      const box = await code.boundingBox();
      expect(box!.y).toBeLessThan(844 / 2);
      expect(await page.evaluate(() => document.querySelector('authgate-sign-in')!.shadowRoot!.activeElement?.getAttribute('name'))).toBe('code');
      await page.screenshot({ path: join(SHOTS, 'phone-second-factor.png') });
      await code.fill(codeNow(secret, 1));
      await page.click('authgate-sign-in button[type=submit]');
      await signedInShown(page);
      // The profile opens with no second code asked.
      await page.locator('authgate-account section[aria-labelledby=profile] input[name=FirstName]').waitFor();
      await page.context().close();
    },
    90_000,
  );

  browserIt(
    "after a passkey sign-in as an account, the account screen shows that account's profile",
    async () => {
      const page = await withAccount('keyed@example.com', 'keyed lantern pass');
      await virtualAuthenticator(page);
      await page.click('authgate-account >> text=Add a passkey');
      await page.locator('authgate-account section[aria-labelledby=passkeys] li').waitFor();
      await signOutOnPage(page);
      await page.click('authgate-sign-in >> text=Sign in with a passkey');
      expect(await shownUser(page)).toBe('keyed@example.com');
      await page.locator('authgate-account section[aria-labelledby=profile] input[name=FirstName]').waitFor();
      await page.context().close();
    },
    90_000,
  );

  browserIt(
    'an e-mail change says it signed you out and has the new address ready to sign in with',
    async () => {
      const page = await withAccount('before@example.com', 'before lantern pass');
      const mark = example!.logLines.length;
      const profile = page.locator('authgate-account section[aria-labelledby=profile]');
      await profile.locator('input[name=email]').fill('after@example.com');
      await profile.locator('form:has(input[name=email]) input[name=password]').fill('before lantern pass');
      await profile.locator('text=Change e-mail address').click();
      await profile.locator('input[name=code]').fill(await fromLog(example!, /#email-code=([0-9a-f]{32})/, mark));
      await profile.locator('form:has(input[name=code]) button[type=submit]').click();
      await page.waitForSelector('body[data-session=signed-out]');
      await page.locator('authgate-sign-in [role=status] >> text=/Your e-mail address is now after@example.com/').waitFor();
      expect(await page.locator('authgate-sign-in input[name=user]').inputValue()).toBe('after@example.com');
      await page.fill('authgate-sign-in input[name=password]', 'before lantern pass');
      await page.click('authgate-sign-in button[type=submit]');
      expect(await shownUser(page)).toBe('after@example.com');
      await page.context().close();
    },
    90_000,
  );

  browserIt(
    'an account not activated yet hears so on the sign-in screen, as the server says it',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await signUpOnPage(example!, page, 'waiting@example.com', 'waiting lantern pass');
      await signInWith(page, 'waiting@example.com', 'waiting lantern pass');
      await page.locator('authgate-sign-in [role=alert] >> text=/not activated/').waitFor();
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'each screen says what its action did: the sign-up, the activation, a saved profile, a linked login',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      const link = await signUpOnPage(example!, page, 'notices@example.com', 'notices lantern pass');
      expect(await page.locator('authgate-sign-up [role=status]').textContent()).toContain('notices@example.com');
      await page.goto(link);
      await page.click('authgate-sign-up button.primary');
      await page.locator('authgate-sign-up h2 >> text=Your account is active').waitFor();
      await page.click('authgate-sign-up >> text=Sign in');
      await signInWith(page, 'notices@example.com', 'notices lantern pass');
      await signedInShown(page);
      const profile = page.locator('authgate-account section[aria-labelledby=profile]');
      await profile.locator('input[name=FirstName]').fill('Nora');
      await profile.locator('text=Save').click();
      await page.locator('authgate-account [role=status] >> text=Saved.').waitFor();

      await page.click('authgate-account >> text=Link Dev');
      await page.waitForSelector('#username');
      await page.fill('#username', 'notices-dev');
      await page.click('#dev-login');
      await page.waitForURL(`${base}/`);
      await page.locator('authgate-account [role=status] >> text=Dev is linked: it now signs in to this account.').waitFor();
      await page.context().close();
    },
    90_000,
  );
});
