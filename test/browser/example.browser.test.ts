import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DEMO_USERS } from '../../examples/server/app';
import { SHOTS } from '../support/browser';
import {
  browserIt,
  callOnPage,
  fromLog as fromLog_,
  pageJson,
  shownUser,
  signedInShown,
  signInWith,
  signOutOnPage,
  signUpAndActivate as signUpAndActivate_,
  startBrowserExample,
  whoAmI,
  type BrowserExample,
} from '../support/example-browser';

/** Continues with SSO from the sign-in screen with a work e-mail of the demo's customer. */
async function ssoFromSignIn(page: Page): Promise<void> {
  await page.fill('authgate-sign-in input[name=email][autocomplete=email]', 'someone@customer.test');
  await page.click('authgate-sign-in >> text=Continue with SSO');
  await page.waitForSelector('#idp-sign-in');
}

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
    "signs someone@customer.test in through the customer's identity provider (SAML) with a work e-mail, and out through it",
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('body[data-session=signed-out]');
      await ssoFromSignIn(page);
      // The IdP's own page (another origin), then its form posts the answer back to the app.
      expect(new URL(page.url()).pathname).toBe('/sso');
      await page.fill('#idp-name', 'Sam Customer');
      await page.click('#idp-sign-in');
      await signedInShown(page);
      expect(page.url()).toBe(`${base}/`);
      expect(await shownUser(page)).toBe('Sam Customer');
      const orgs = await pageJson(page, '/auth/orgs');
      expect(orgs).toMatchObject([{ name: 'Customer Inc.', roles: ['member'] }]);
      // The organization screen shows the organization the IdP put the person in.
      await page.locator('authgate-organization h2 >> text=Customer Inc.').waitFor();
      await page.screenshot({ path: join(SHOTS, 'sso-signed-in.png') });
      // Signing out goes through the IdP too: the user button, the IdP's answer, back on the app signed out.
      await page.click('authgate-user-button button.user');
      await page.click('authgate-user-button >> text=Sign out');
      await page.waitForSelector('form[action$="/auth/sso/idp-logout"] button');
      expect(await page.textContent('h1')).toBe('You are signed out');
      await page.click('form button');
      await page.waitForURL(`${base}/`);
      await page.waitForSelector('body[data-session=signed-out]');
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    "the organization's admin sets SSO up on its page: the domain and its DNS record, the connection's values, a claim, a test that signs nobody in",
    async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
      await page.goto(base);
      await signInWith(page, 'admin', DEMO_USERS.admin!);
      await signedInShown(page);
      // The organization screen links its admin to the SSO set-up page.
      await page.locator('authgate-organization h2 >> text=Customer Inc.').waitFor();
      await page.click('authgate-organization >> text=Set up a connection');
      await page.waitForURL(`${base}/auth/orgs/customer/sso`);
      const opened = await page.reload();
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
      expect(await shownUser(page)).toBe('admin');
      // The admin console lists every organization's domains and connections.
      await page.goto(`${base}/auth/admin/`);
      await page.locator('#sso-list li', { hasText: 'Customer Inc.: ' }).waitFor();
      expect(await page.textContent('#sso-list')).toContain('customer.test (verified)');
      expect(await page.textContent('#sso-list')).toContain('Customer IdP (example) [saml]');
      // Signed out again: the other tests count the admin's sessions.
      await page.goto(base);
      await signOutOnPage(page);
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'logs in by an e-mail link; the mailed links of an e-mail change and a password reset open their forms filled in',
    async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(base);
      await page.waitForSelector('body[data-session=signed-out]');
      let mark = logLines.length;
      await page.fill('authgate-sign-in input[name=address]', 'reader@example.com');
      await page.click('authgate-sign-in >> text=E-mail me a sign-in link');
      await page.locator('authgate-sign-in [role=status] >> text=/reader@example.com/').waitFor();
      await page.goto(await fromLog(/(http:\/\/\S+\/auth\/email\/login\?token=\S+)/, mark));
      expect(await shownUser(page)).toBe('reader');
      await signOutOnPage(page);

      await signUpAndActivate(page, 'mover@example.com', 'mover lantern pass');
      await page.goto(base);
      await signInWith(page, 'mover@example.com', 'mover lantern pass');
      const profile = page.locator('authgate-account section[aria-labelledby=profile]');
      await profile.locator('input[name=email]').waitFor();
      mark = logLines.length;
      await profile.locator('input[name=email]').fill('moved@example.com');
      await profile.locator('form:has(input[name=email]) input[name=password]').fill('mover lantern pass');
      await profile.locator('text=Change e-mail address').click();
      await page.locator('authgate-account [role=status] >> text=/moved@example.com/').waitFor();
      const changeLink = await fromLog(/(http:\/\/\S+\/#email-code=[0-9a-f]{32})/, mark);
      await page.goto(changeLink);
      // The link opens the confirmation with its code, and leaves the address bar.
      await profile.locator('input[name=code]').waitFor();
      expect(await profile.locator('input[name=code]').inputValue()).toMatch(/^[0-9a-f]{32}$/);
      expect(page.url()).toBe(`${base}/`);
      await profile.locator('form:has(input[name=code]) button[type=submit]').click();
      // The move ends the sessions of the old address.
      await page.waitForSelector('body[data-session=signed-out]');

      mark = logLines.length;
      await page.click('authgate-sign-in >> text=Forgot your password?');
      await page.fill('authgate-sign-in input[name=email]', 'moved@example.com');
      await page.click('authgate-sign-in button[type=submit]');
      await page.locator('authgate-sign-in h2 >> text=Choose a new password').waitFor();
      // The link alone fills the form: the code and the address (nothing typed again).
      await page.goto(await fromLog(/(http:\/\/\S+\/#reset=[0-9a-f]{32}&email=\S+)/, mark));
      await page.locator('authgate-sign-in >> text=For the account moved@example.com.').waitFor();
      expect(await page.locator('authgate-sign-in input[name=code]').inputValue()).toMatch(/^[0-9a-f]{32}$/);
      expect(page.url()).toBe(`${base}/`);
      await page.fill('authgate-sign-in input[name=password]', 'moved lantern pass');
      await page.click('authgate-sign-in button[type=submit]');
      await page.locator('authgate-sign-in [role=status] >> text=Your password is changed. Sign in with it.').waitFor();
      await signInWith(page, 'moved@example.com', 'moved lantern pass');
      expect(await shownUser(page)).toBe('moved@example.com');
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'works on a phone-sized screen and with the keyboard alone; an error shows in the screen and takes the focus',
    async () => {
      const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 })).newPage();
      await page.goto(base);
      await page.waitForSelector('body[data-session=signed-out]');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'phone-sign-in.png'), fullPage: true });
      await page.focus('authgate-sign-in input[name=user]');
      await page.keyboard.type('demo');
      await page.keyboard.press('Tab');
      await page.keyboard.type('not-the-password');
      await page.keyboard.press('Enter');
      const alert = page.locator('authgate-sign-in [role=alert]');
      await page.locator('authgate-sign-in [role=alert] >> text=/incorrect user or password/i').waitFor();
      expect(await page.evaluate(() => document.querySelector('authgate-sign-in')!.shadowRoot!.activeElement?.getAttribute('role'))).toBe('alert');
      await page.focus('authgate-sign-in input[name=password]');
      await page.keyboard.press('Control+A');
      await page.keyboard.type(DEMO_USERS.demo!);
      await page.keyboard.press('Enter');
      await signedInShown(page);
      expect(await alert.textContent()).toBe('');
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS, 'phone-signed-in.png'), fullPage: true });
      await page.context().close();
    },
    60_000,
  );

  browserIt(
    'logs in with a demo user, shows name and avatar, calls /private, logs out',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(base);
      await page.waitForSelector('body[data-session=signed-out]');
      await page.screenshot({ path: join(SHOTS, 'sign-in.png'), fullPage: true });
      await signInWith(page, 'demo', DEMO_USERS.demo!);
      expect(await shownUser(page)).toBe('demo');
      const avatar = page.locator('authgate-user-button button.user img');
      expect(await avatar.getAttribute('src')).toMatch(new RegExp(`^${base}/avatar/[0-9a-f]{40}\\.image$`));
      await page.waitForFunction(() => {
        const img = document.querySelector('authgate-user-button')?.shadowRoot?.querySelector('img');
        return img !== null && img !== undefined && img.complete && img.naturalWidth > 0;
      });
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'JWT')?.httpOnly).toBe(true);
      expect(cookies.find((c) => c.name === 'XSRF-TOKEN')?.httpOnly).toBe(false);

      const answer = await callOnPage(page, '/private');
      expect(answer).toMatch(/^200 \/private/);
      expect(answer).toContain('this is a protected route');
      expect(await callOnPage(page, '/admin')).toMatch(/^403 \/admin/);
      await page.screenshot({ path: join(SHOTS, 'signed-in.png'), fullPage: true });

      await signOutOnPage(page);
      expect((await page.context().cookies()).find((c) => c.name === 'JWT')).toBeUndefined();
      await page.close();
    },
    60_000,
  );

  browserIt(
    'lists the sessions of two browsers and signs the other one out from the first, which stays signed in',
    async () => {
      const logIn = async (): Promise<Page> => {
        const page = await (await browser.newContext()).newPage();
        await page.goto(base);
        await signInWith(page, 'admin', DEMO_USERS.admin!);
        await signedInShown(page);
        return page;
      };
      const first = await logIn();
      const second = await logIn();
      await first.reload();
      const sessions = first.locator('authgate-account section[aria-labelledby=sessions] li');
      await first.locator('authgate-account section[aria-labelledby=sessions] li >> nth=1').waitFor();
      expect(await sessions.count()).toBe(2);
      const items = await sessions.allTextContents();
      expect(items.filter((t) => t.startsWith('This device'))).toHaveLength(1);
      expect(items.every((t) => t.includes('Chrome') && t.includes('local'))).toBe(true);
      await first.click('authgate-account section[aria-labelledby=sessions] li:not(:has-text("This device")) >> text=Sign out there');
      await first.locator('authgate-account [role=status] >> text=That session is ended.').waitFor();
      expect(await sessions.count()).toBe(1);
      expect(await callOnPage(second, '/private')).toMatch(/^401 /);
      expect(await callOnPage(first, '/private')).toMatch(/^200 /);
      await signOutOnPage(first);
      await Promise.all([first.context().close(), second.context().close()]);
    },
    60_000,
  );

  browserIt(
    'signs up, activates from the mailed link with a click, signs in with the account, saves the profile, and deletes the account',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await page.waitForSelector('body[data-session=signed-out]');
      await signUpAndActivate(page, 'browser@example.com', 'browser-pass-1');
      await page.screenshot({ path: join(SHOTS, 'activation.png') });
      await page.goto(base);
      await signInWith(page, 'browser@example.com', 'browser-pass-1');
      expect(await shownUser(page)).toBe('browser@example.com');
      const profile = page.locator('authgate-account section[aria-labelledby=profile]');
      await profile.locator('input[name=FirstName]').fill('Brow');
      await profile.locator('input[name=LastName]').fill('Ser');
      await profile.locator('text=Save').click();
      await page.locator('authgate-account [role=status] >> text=Saved.').waitFor();
      await page.reload();
      await profile.locator('input[name=FirstName][value=Brow]').waitFor();
      expect(await profile.locator('input[name=LastName]').inputValue()).toBe('Ser');
      await profile.locator('form.danger input[name=password], form:has-text("Delete my account") input[name=password]').first().fill('browser-pass-1');
      await profile.locator('text=Delete my account').click();
      await page.waitForSelector('body[data-session=signed-out]');
      await signInWith(page, 'browser@example.com', 'browser-pass-1');
      await page.locator('authgate-sign-in [role=alert]').waitFor();
      expect(await page.locator('authgate-sign-in [role=alert]').textContent()).not.toBe('');
      await page.close();
    },
    60_000,
  );

  browserIt(
    'links the dev login to an account from the account screen, signs in with dev as the account, and unlinks it',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await signUpAndActivate(page, 'linker@example.com', 'linker-pass-1');
      await page.goto(base);
      await signInWith(page, 'linker@example.com', 'linker-pass-1');
      await signedInShown(page);
      const accountId = (await whoAmI(page)).id;
      const links = page.locator('authgate-account section[aria-labelledby=links]');
      await links.locator('text=Link Dev').click();
      await page.waitForSelector('#username');
      await page.fill('#username', 'linked-dev-user');
      await page.click('#dev-login');
      await page.waitForURL(`${base}/`);
      await page.locator('authgate-account [role=status] >> text=Dev is linked: it now signs in to this account.').waitFor();
      expect((await whoAmI(page)).id).toBe(accountId);
      await links.locator('li >> nth=1').waitFor();
      expect(await links.locator('li').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Dev: linked-dev-user')]));
      await links.screenshot({ path: join(SHOTS, 'linked-logins.png') });

      // Another browser signs in with dev and is the account.
      const other = await (await browser.newContext()).newPage();
      await other.goto(base);
      await other.click('authgate-sign-in >> text=Continue with Dev');
      await other.fill('#username', 'linked-dev-user');
      await other.click('#dev-login');
      expect(await shownUser(other)).toBe('linker@example.com');
      expect((await whoAmI(other)).id).toBe(accountId);

      await links.locator('li:has-text("linked-dev-user") >> text=Unlink').click();
      await page.locator('authgate-account [role=status] >> text=Dev is removed.').waitFor();
      expect(await links.locator('li').count()).toBe(1);
      expect(await callOnPage(other, '/private')).toMatch(/^401 /);
      await other.context().close();
      await signOutOnPage(page);
      await page.close();
    },
    60_000,
  );

  browserIt(
    'logs in with dev: button, dev login form, back with name and avatar, /private, log out; a stale callback offers to start again',
    async () => {
      const page = await browser.newPage();
      await page.goto(base);
      await page.click('authgate-sign-in >> text=Continue with Dev');
      await page.waitForSelector('#username');
      expect(page.url()).toContain('/login/oauth/authorize');
      await page.fill('#username', 'dev-user');
      await page.click('#dev-login');
      await page.waitForURL(`${base}/`);
      expect(await shownUser(page)).toBe('dev-user');
      expect((await whoAmI(page)).id).toMatch(/^dev_[0-9a-f]{40}$/);
      // Not an account of the account service: no profile or password part.
      await page.locator('authgate-account section[aria-labelledby=sessions]').waitFor();
      expect(await page.locator('authgate-account section[aria-labelledby=profile]').count()).toBe(0);
      expect(await callOnPage(page, '/private')).toContain('dev-user');
      await signOutOnPage(page);

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
      await page.waitForSelector('body[data-session=signed-out]');
      await ssoFromSignIn(page);
      // The IdP is on another site than the app: its form's POST carries no Lax cookie of the app.
      expect(new URL(page.url()).hostname).toBe('127.0.0.1');
      expect(new URL(base).hostname).toBe('localhost');
      const finished = page.waitForRequest((req) => /\/auth\/sso\/finish\//.test(req.url()));
      await page.fill('#idp-name', 'Sam Customer');
      await page.click('#idp-sign-in');
      await finished;
      await signedInShown(page);
      expect(page.url()).toBe(`${base}/`);
      expect(await shownUser(page)).toBe('Sam Customer');
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
      await page.waitForSelector('body[data-session=signed-out]');
      await ssoFromSignIn(page);
      expect(new URL(page.url()).origin).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(new URL(base).protocol).toBe('https:');
      await page.fill('#idp-name', 'Tess Customer');
      await page.click('#idp-sign-in');
      await signedInShown(page);
      expect(page.url()).toBe(`${base}/`);
      expect(await shownUser(page)).toBe('Tess Customer');
      expect(parked).toEqual([]);
      const cookies = await page.context().cookies(base);
      expect(cookies.find((c) => c.name === 'JWT')).toMatchObject({ secure: true, httpOnly: true });
      await page.close();
    },
    60_000,
  );
});
