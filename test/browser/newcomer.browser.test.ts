import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SHOTS } from '../support/browser';
import { accountSignIn, browserIt, fromLog, signUpAndActivate, signUpOnPage, startBrowserExample, virtualAuthenticator, type BrowserExample } from '../support/example-browser';
import { awayFromStepEdge, codeNow } from '../support/totp-code';

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
    await page.waitForSelector('#logged-out:not(.hidden)');
    await signUpAndActivate(example!, page, email, pwd);
    await page.goto(base);
    await page.waitForSelector('#logged-out:not(.hidden)');
    await accountSignIn(page, email, pwd);
    await page.waitForSelector('#profile-form:not(.hidden)');
    return page;
  };

  /** Turns two-factor on from the page; the TOTP secret. */
  const turnOnTwoFactor = async (page: Page): Promise<string> => {
    await page.click('#enroll-2fa');
    await page.waitForSelector('#enrolment:not(.hidden)');
    const secret = (await page.textContent('#totp-secret')) ?? '';
    await awayFromStepEdge();
    await page.fill('#totp-code', codeNow(secret));
    await page.click('#confirm-2fa');
    await page.waitForSelector('#recovery-codes:not(.hidden)');
    return secret;
  };

  browserIt(
    'with two-factor on, one code signs in and opens the profile; on a phone the code card is on the first screen',
    async () => {
      const page = await withAccount('twice@example.com', 'twice lantern pass', { width: 390, height: 844 });
      const secret = await turnOnTwoFactor(page);
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.evaluate('window.scrollTo(0, 0)');
      await accountSignIn(page, 'twice@example.com', 'twice lantern pass');
      await page.waitForSelector('#second-factor:not(.hidden)');
      // The card starts within the first screen of the page, not below the sign-in cards.
      const top = (await page.evaluate("document.getElementById('second-factor').getBoundingClientRect().top + window.scrollY")) as number;
      expect(top).toBeLessThan(844 / 2);
      await page.screenshot({ path: join(SHOTS, 'phone-second-factor.png') });
      await page.fill('#second-factor-code', codeNow(secret, 1));
      await page.click('#verify-2fa');
      await page.waitForSelector('#logged-in:not(.hidden)');
      // The profile opens with no second code asked.
      await page.waitForSelector('#profile-form:not(.hidden)');
      expect(await page.isVisible('#account-hint')).toBe(false);
      expect(await page.locator('#profile-otp').count()).toBe(0);
      await page.context().close();
    },
    90_000,
  );

  browserIt(
    "after a passkey login as an account, the account card shows that account's profile",
    async () => {
      const page = await withAccount('keyed@example.com', 'keyed lantern pass');
      await virtualAuthenticator(page);
      await page.click('#add-passkey');
      await page.waitForFunction("document.querySelectorAll('#passkeys li.passkey').length === 1");
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.click('#passkey-login');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#status')).toBe('Signed in as keyed@example.com');
      await page.waitForSelector('#profile-form:not(.hidden)');
      expect(await page.isVisible('#account-hint')).toBe(false);
      await page.context().close();
    },
    90_000,
  );

  browserIt(
    'an e-mail change says it signed you out and has the new address ready to sign in with',
    async () => {
      const page = await withAccount('before@example.com', 'before lantern pass');
      const mark = example!.logLines.length;
      await page.click('#danger-box summary');
      await page.fill('#new-email', 'after@example.com');
      await page.fill('#account-action-pwd', 'before lantern pass');
      await page.click('#change-email');
      await page.waitForFunction("document.getElementById('profile-notice').textContent.length > 0");
      await page.fill('#email-code', await fromLog(example!, /#email-code=([0-9a-f]{32})/, mark));
      await page.click('#confirm-email');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.waitForFunction("document.getElementById('account-notice').textContent.includes('after@example.com')");
      expect(await page.inputValue('#account-email')).toBe('after@example.com');
      await page.fill('#account-pwd', 'before lantern pass');
      await page.click('#account-login');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('after@example.com');
      await page.context().close();
    },
    90_000,
  );

  browserIt(
    'an account not activated yet hears so on the account card, as the access token route says it',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await signUpOnPage(example!, page, 'waiting@example.com', 'waiting lantern pass');
      await accountSignIn(page, 'waiting@example.com', 'waiting lantern pass');
      await page.waitForFunction("document.getElementById('account-error').textContent.length > 0");
      expect(await page.textContent('#account-error')).toContain('not activated');
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'no message of an earlier action stays on the page, and saving the profile or linking a login says it worked',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      const link = await signUpOnPage(example!, page, 'notices@example.com', 'notices lantern pass');
      expect(await page.textContent('#output')).toContain('activation');
      await page.goto(link);
      await page.goto(base);
      await accountSignIn(page, 'notices@example.com', 'notices lantern pass');
      await page.waitForSelector('#profile-form:not(.hidden)');
      // The sign-up's message is gone once another action ran.
      expect(await page.textContent('#output')).toBe('');

      await page.fill('#first-name', 'Nora');
      await page.click('#save-profile');
      await page.waitForFunction("document.getElementById('profile-notice').textContent.length > 0");
      expect(await page.textContent('#profile-notice')).toBe('Profile saved.');

      await page.click('#link-dev');
      await page.waitForSelector('#username');
      await page.fill('#username', 'notices-dev');
      await page.click('#dev-login');
      await page.waitForURL(`${base}/`);
      await page.waitForFunction("document.getElementById('links-notice').textContent.length > 0");
      expect(await page.textContent('#links-notice')).toContain('Linked dev (notices-dev)');
      await page.context().close();
    },
    90_000,
  );
});
