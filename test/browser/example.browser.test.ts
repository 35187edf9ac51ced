import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEMO_USERS } from '../../examples/server/app';
import { SHOTS } from '../support/browser';
import { browserIt, fromLog as fromLog_, signUpAndActivate as signUpAndActivate_, startBrowserExample, type BrowserExample } from '../support/example-browser';

describe('example in headless chromium', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;
  let logLines: string[] = [];

  beforeAll(async () => {
    example = await startBrowserExample('127.0.0.1', 'b'.repeat(32), {}, { ssoDemo: true });
    if (example) ({ base, browser, logLines } = example);
  }, 60_000);
  afterAll(() => example?.close());

  const fromLog = (pattern: RegExp, after: number): Promise<string> => fromLog_(example!, pattern, after);
  const signUpAndActivate = (page: Page, email: string, pwd: string): Promise<void> => signUpAndActivate_(example!, page, email, pwd);

  browserIt(
    "signs someone@customer.test in through the customer's identity provider (SAML) with a work e-mail",
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      expect(await page.inputValue('#sso-email')).toBe('someone@customer.test');
      await page.click('#sso-login');
      // The IdP's own page (another origin), then its form posts the answer back to the app.
      await page.waitForSelector('#idp-sign-in');
      expect(new URL(page.url()).pathname).toBe('/sso');
      await page.fill('#idp-name', 'Sam Customer');
      await page.click('#idp-sign-in');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(page.url()).toBe(`${base}/`);
      expect(await page.textContent('#user-name')).toBe('Sam Customer');
      const orgs = await page.evaluate(async () => (await fetch('/auth/orgs', { headers: { 'X-XSRF-TOKEN': document.cookie.replace(/.*XSRF-TOKEN=([^;]+).*/, '$1') } })).json());
      expect(orgs).toMatchObject([{ name: 'Customer Inc.', roles: ['member'] }]);
      await page.screenshot({ path: join(SHOTS, 'sso-signed-in.png') });
      // Signing out goes through the IdP too: the page's button, the IdP's answer, back on the app signed out.
      await page.click('#logout');
      await page.waitForSelector('form[action$="/auth/sso/idp-logout"] button');
      expect(await page.textContent('h1')).toBe('You are signed out');
      await page.click('form button');
      await page.waitForURL(`${base}/`);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    "the organization's admin sets SSO up on its page: the domain and its DNS record, the connection's values, a claim, a test that signs nobody in",
    async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
      await page.goto(base);
      await page.fill('#user', 'admin');
      await page.fill('#passwd', DEMO_USERS.admin!);
      await page.click('#direct-login');
      await page.waitForSelector('#logged-in:not(.hidden)');
      const opened = await page.goto(`${base}/auth/orgs/customer/sso`);
      expect(opened?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.locator('#domains tr[data-domain="customer.test"]', { hasText: 'verified' }).waitFor();
      const connection = page.locator('#connections .connection').first();
      await connection.waitFor();
      expect(await connection.textContent()).toContain(`${base}/auth/sso/acs/`);
      expect(await connection.textContent()).toContain('Customer IdP (example)');
      await page.fill('#domain', 'branch.customer.test');
      await page.click('#add-domain');
      await page.locator('#domains tr[data-domain="branch.customer.test"]', { hasText: '_authgate-challenge.branch.customer.test' }).waitFor();
      expect(await page.textContent('#message')).toContain('authgate-domain-verification=');
      await page.screenshot({ path: join(SHOTS, 'sso-setup.png'), fullPage: true });

      await connection.locator('a.test').click();
      await page.waitForSelector('#idp-sign-in');
      await page.click('#idp-sign-in');
      await page.locator('h1', { hasText: 'The connection works' }).waitFor();
      expect(await page.textContent('body')).toContain('someone@customer.test');
      // The admin is still the admin: the test made no session.
      await page.goto(base);
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('admin');
      // The admin console lists every organization's domains and connections.
      await page.goto(`${base}/auth/admin/`);
      await page.locator('#sso-list li', { hasText: 'Customer Inc.: ' }).waitFor();
      expect(await page.textContent('#sso-list')).toContain('customer.test (verified)');
      expect(await page.textContent('#sso-list')).toContain('Customer IdP (example) [saml]');
      // Signed out again: the other tests count the admin's sessions.
      await page.goto(base);
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'logs in by an e-mail link; the mailed links of an e-mail change and a password reset fill in the page',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      let mark = logLines.length;
      await page.click('#email-form >> xpath=..');
      await page.fill('#email-user', 'reader');
      await page.fill('#email-address', 'reader@example.com');
      await page.click('#email-login');
      await page.waitForFunction("document.getElementById('email-notice').textContent.includes('reader@example.com')");
      await page.goto(await fromLog(/(http:\/\/\S+\/auth\/email\/login\?token=\S+)/, mark));
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('reader');
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');

      await signUpAndActivate(page, 'mover@example.com', 'mover lantern pass');
      await page.goto(base);
      await page.fill('#account-email', 'mover@example.com');
      await page.fill('#account-pwd', 'mover lantern pass');
      await page.click('#account-login');
      await page.waitForSelector('#profile-form:not(.hidden)');
      mark = logLines.length;
      await page.click('#danger-box summary');
      await page.fill('#new-email', 'moved@example.com');
      await page.fill('#account-action-pwd', 'mover lantern pass');
      await page.click('#change-email');
      await page.waitForFunction("document.getElementById('profile-notice').textContent.length > 0");
      const changeLink = await fromLog(/(http:\/\/\S+\/#email-code=[0-9a-f]{32})/, mark);
      await page.goto(changeLink);
      await page.waitForSelector('#profile-form:not(.hidden)');
      expect(await page.inputValue('#email-code')).toMatch(/^[0-9a-f]{32}$/);
      expect(page.url()).toBe(`${base}/`);
      await page.click('#confirm-email');
      await page.waitForSelector('#logged-out:not(.hidden)');

      mark = logLines.length;
      await page.click('#forgot-box summary');
      await page.fill('#forgot-email', 'moved@example.com');
      await page.click('#forgot');
      await page.waitForFunction("document.getElementById('forgot-notice').textContent.length > 0");
      // The link alone fills the page: the code and the address (nothing typed again).
      await page.goto(await fromLog(/(http:\/\/\S+\/#reset=[0-9a-f]{32}&email=\S+)/, mark));
      await page.waitForSelector('#logged-out:not(.hidden)');
      expect(await page.evaluate("document.getElementById('forgot-box').open")).toBe(true);
      expect(await page.inputValue('#reset-code')).toMatch(/^[0-9a-f]{32}$/);
      expect(await page.inputValue('#forgot-email')).toBe('moved@example.com');
      await page.fill('#reset-pwd', 'moved lantern pass');
      await page.click('#reset');
      await page.waitForFunction("document.getElementById('reset-notice').textContent.includes('Password changed')");
      await page.fill('#account-email', 'moved@example.com');
      await page.fill('#account-pwd', 'moved lantern pass');
      await page.click('#account-login');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('moved@example.com');
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'works on a phone-sized screen and with the keyboard alone; an error shows next to its form',
    async () => {
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 })).newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'phone-sign-in.png'), fullPage: true });
      await page.focus('#user');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('demo');
      await page.keyboard.press('Tab');
      await page.keyboard.type('not-the-password');
      await page.keyboard.press('Enter');
      await page.waitForFunction("document.getElementById('direct-error').textContent.includes('incorrect user or password')");
      expect(await page.evaluate("document.getElementById('direct-form').contains(document.getElementById('direct-error'))")).toBe(true);
      await page.focus('#passwd');
      await page.keyboard.press('Control+A');
      await page.keyboard.type(DEMO_USERS.demo!);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#direct-error')).toBe('');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'phone-signed-in.png'), fullPage: true });
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'logs in with the direct form, shows name and avatar, calls /private, logs out',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.screenshot({ path: join(SHOTS, 'sign-in.png'), fullPage: true });
      await page.fill('#user', 'demo');
      await page.fill('#passwd', DEMO_USERS.demo!);
      await page.click('#direct-login');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('demo');
      // page-side expressions are strings: this file is type-checked without DOM types
      await page.waitForFunction("(() => { const img = document.getElementById('avatar'); return img && img.complete && img.naturalWidth > 0; })()");
      expect(await page.getAttribute('#avatar', 'src')).toMatch(new RegExp(`^${base}/avatar/[0-9a-f]{40}\\.image$`));
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'JWT')?.httpOnly).toBe(true);
      expect(cookies.find((c) => c.name === 'XSRF-TOKEN')?.httpOnly).toBe(false);

      await page.click('#call-private');
      await page.waitForFunction("document.getElementById('output').textContent.includes('protected route')");
      expect(await page.textContent('#output')).toContain('"status": 200');
      await page.screenshot({ path: join(SHOTS, 'signed-in.png'), fullPage: true });

      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      expect(await page.textContent('#status')).toBe('Not signed in.');
      expect((await page.context().cookies()).find((c) => c.name === 'JWT')).toBeUndefined();
      await page.close();
    },
    60_000,
  );

  browserIt(
    'lists the sessions of two browsers and signs the other one out from the first, which stays logged in',
    async () => {
      const logIn = async (): Promise<Page> => {
        const page = await (await browser.newContext()).newPage();
        await page.goto(base);
        await page.waitForSelector('#logged-out:not(.hidden)');
        await page.fill('#user', 'admin');
        await page.fill('#passwd', DEMO_USERS.admin!);
        await page.click('#direct-login');
        await page.waitForSelector('#logged-in:not(.hidden)');
        return page;
      };
      const first = await logIn();
      const second = await logIn();
      await first.reload();
      await first.waitForFunction("document.querySelectorAll('#sessions li.session').length === 2");
      const items = await first.$$eval('#sessions li.session', (lis) => lis.map((li) => li.textContent ?? ''));
      expect(items.filter((t) => t.includes('(this one)'))).toHaveLength(1);
      expect(items.every((t) => t.includes('Chrome') && t.includes('via local'))).toBe(true);
      // Sign out the other one (the list is newest first: the second browser's session is on top).
      await first.click('#sessions li.session:not(:has-text("(this one)")) button.revoke-session');
      await first.waitForFunction("document.querySelectorAll('#sessions li.session').length === 1");
      await second.click('#call-private');
      await second.waitForFunction("document.getElementById('output').textContent.includes('401')");
      await first.click('#call-private');
      await first.waitForFunction("document.getElementById('output').textContent.includes('protected route')");
      await first.click('#logout');
      await first.waitForSelector('#logged-out:not(.hidden)');
      await Promise.all([first.context().close(), second.context().close()]);
    },
    60_000,
  );

  browserIt(
    'resets a forgotten password with the mailed code, logs in with it, and deletes the account',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await signUpAndActivate(page, 'forgetful@example.com', 'first lantern pass');
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      const mark = logLines.length;
      await page.click('#forgot-box summary');
      await page.fill('#forgot-email', 'forgetful@example.com');
      await page.click('#forgot');
      await page.waitForFunction("document.getElementById('output').textContent.includes('reset code')");
      await page.fill('#reset-code', await fromLog(/code is:\s*([0-9a-f]{32})/, mark));
      await page.fill('#reset-pwd', 'second lantern pass');
      await page.click('#reset');
      await page.waitForFunction("document.getElementById('output').textContent.includes('Password changed')");
      await page.fill('#account-email', 'forgetful@example.com');
      await page.fill('#account-pwd', 'second lantern pass');
      await page.click('#account-login');
      await page.waitForSelector('#profile-form:not(.hidden)');
      await page.click('#danger-box summary');
      await page.fill('#account-action-pwd', 'second lantern pass');
      await page.click('#delete-account');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.fill('#account-email', 'forgetful@example.com');
      await page.fill('#account-pwd', 'second lantern pass');
      await page.click('#account-login');
      await page.waitForFunction("document.getElementById('error').textContent.length > 0");
      await page.close();
    },
    60_000,
  );

  browserIt(
    'signs up, activates from the mailed link, logs in with the account and saves the profile',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await signUpAndActivate(page, 'browser@example.com', 'browser-pass-1');
      expect(await page.textContent('#message')).toContain('Your account is active');
      await page.screenshot({ path: join(SHOTS, 'activation.png') });
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.fill('#account-email', 'browser@example.com');
      await page.fill('#account-pwd', 'browser-pass-1');
      await page.click('#account-login');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('browser@example.com');
      await page.waitForSelector('#profile-form:not(.hidden)');
      await page.fill('#first-name', 'Brow');
      await page.fill('#last-name', 'Ser');
      await page.click('#save-profile');
      await page.waitForFunction("document.getElementById('output').textContent.includes('Ser')");
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.close();
    },
    60_000,
  );

  browserIt(
    'links the dev login to an account on the page, logs in with dev as the account, and unlinks it',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await signUpAndActivate(page, 'linker@example.com', 'linker-pass-1');
      await page.goto(base);
      await page.fill('#account-email', 'linker@example.com');
      await page.fill('#account-pwd', 'linker-pass-1');
      await page.click('#account-login');
      await page.waitForSelector('#profile-form:not(.hidden)');
      await page.waitForSelector('#link-dev');
      const accountId = await page.textContent('#user-id');
      await page.click('#link-dev');
      await page.waitForSelector('#username');
      await page.fill('#username', 'linked-dev-user');
      await page.click('#dev-login');
      await page.waitForURL(`${base}/`);
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-id')).toBe(accountId);
      await page.waitForFunction("document.querySelectorAll('#logins li.linked-login').length === 2");
      await page.locator('#links-box').screenshot({ path: join(SHOTS, 'linked-logins.png') });
      expect(await page.textContent('#logins')).toContain('dev: linked-dev-user');

      // Another browser logs in with dev and is the account.
      const other = await (await browser.newContext()).newPage();
      await other.goto(base);
      await other.click('#login-dev');
      await other.fill('#username', 'linked-dev-user');
      await other.click('#dev-login');
      await other.waitForSelector('#logged-in:not(.hidden)');
      expect(await other.textContent('#user-id')).toBe(accountId);
      expect(await other.textContent('#user-name')).toBe('linker@example.com');

      await page.click('#logins li.linked-login button.unlink');
      await page.waitForFunction("document.querySelectorAll('#logins li.linked-login').length === 1");
      await other.click('#call-private');
      await other.waitForFunction("document.getElementById('output').textContent.includes('401')");
      await other.context().close();
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.close();
    },
    60_000,
  );

  browserIt(
    'logs in with dev: button, dev login form, back with name and avatar, /private, log out',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await page.click('#login-dev');
      await page.waitForSelector('#username');
      expect(page.url()).toContain('/login/oauth/authorize');
      await page.fill('#username', 'dev-user');
      await page.click('#dev-login');
      await page.waitForURL(`${base}/`);
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(await page.textContent('#user-name')).toBe('dev-user');
      expect(await page.textContent('#user-id')).toMatch(/^dev_[0-9a-f]{40}$/);
      await page.waitForFunction("(() => { const img = document.getElementById('avatar'); return img && img.complete && img.naturalWidth > 0; })()");
      await page.click('#call-private');
      await page.waitForFunction("document.getElementById('output').textContent.includes('dev-user')");
      expect(await page.textContent('#output')).toContain('"status": 200');
      await page.click('#logout');
      await page.waitForSelector('#logged-out:not(.hidden)');
      expect(await page.textContent('#status')).toBe('Not signed in.');

      // A stale callback (no login in progress): a page with a link that starts again.
      await page.goto(`${base}/auth/dev/callback?code=stale&state=stale`);
      expect(await page.textContent('h1')).toBe('The login did not complete');
      await page.screenshot({ path: join(SHOTS, 'failed-callback.png') });
      await page.click('a:has-text("Start the login again")');
      await page.waitForSelector('#username');
      await page.close();
    },
    60_000,
  );
});

describe('the SSO demo with its IdP on another site, over http (app on localhost, IdP on 127.0.0.1)', () => {
  let example: BrowserExample | undefined;
  beforeAll(async () => {
    example = await startBrowserExample('localhost', 'c'.repeat(32), {}, { ssoDemo: true });
  }, 60_000);
  afterAll(() => example?.close());

  browserIt(
    'signs in although chromium keeps the SameSite=Lax login cookie from the IdP’s cross-site POST',
    async () => {
      const { base, browser } = example!;
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.click('#sso-login');
      await page.waitForSelector('#idp-sign-in');
      // The IdP is on another site than the app: its form's POST carries no Lax cookie of the app.
      expect(new URL(page.url()).hostname).toBe('127.0.0.1');
      expect(new URL(base).hostname).toBe('localhost');
      const finished = page.waitForRequest((req) => /\/auth\/sso\/finish\//.test(req.url()));
      await page.fill('#idp-name', 'Sam Customer');
      await page.click('#idp-sign-in');
      await finished;
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(page.url()).toBe(`${base}/`);
      expect(await page.textContent('#user-name')).toBe('Sam Customer');
      await page.close();
    },
    60_000,
  );
});

describe('the SSO demo with its IdP on another site, over https (app on https://localhost, IdP on https://127.0.0.1, each with its own certificate)', () => {
  let example: BrowserExample | undefined;
  beforeAll(async () => {
    example = await startBrowserExample('localhost', 'd'.repeat(32), {}, { ssoDemo: true, https: true });
  }, 60_000);
  afterAll(() => example?.close());

  browserIt(
    'signs in: the IdP’s cross-site POST brings the login cookie (SameSite=None; Secure), so the answer is not parked',
    async () => {
      const { base, browser } = example!;
      const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
      const parked: string[] = [];
      page.on('request', (req) => void (/\/auth\/sso\/finish\//.test(req.url()) && parked.push(req.url())));
      await page.goto(base);
      await page.waitForSelector('#logged-out:not(.hidden)');
      await page.click('#sso-login');
      await page.waitForSelector('#idp-sign-in');
      expect(new URL(page.url()).origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(new URL(base).protocol).toBe('https:');
      await page.fill('#idp-name', 'Tess Customer');
      await page.click('#idp-sign-in');
      await page.waitForSelector('#logged-in:not(.hidden)');
      expect(page.url()).toBe(`${base}/`);
      expect(await page.textContent('#user-name')).toBe('Tess Customer');
      expect(parked).toEqual([]);
      const cookies = await page.context().cookies(base);
      expect(cookies.find((c) => c.name === 'JWT')).toMatchObject({ secure: true, httpOnly: true });
      await page.close();
    },
    60_000,
  );
});
