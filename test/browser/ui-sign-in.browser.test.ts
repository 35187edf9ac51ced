import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { EmailSender, hashId, senderFunc } from '../../src';
import { accounts } from '../../src/accounts';
import { organizations } from '../../src/organizations';
import { apiKeys } from '../../src/api-keys';
import { sso } from '../../src/plugins/sso';
import { scim } from '../../src/plugins/scim';
import { startDnsPeer, type DnsPeer } from '../support/dns-server';
import { awayFromStepEdge, codeNow } from '../support/totp-code';
import { mailTo } from '../support/account-app';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer';
import { makeApp } from '../support/auth-app';
import { browserRequired, browserUnavailableReason } from '../support/browser';
import { virtualAuthenticator } from '../support/example-browser';
import { startSsoDemo, type SsoDemo } from '../../examples/server/sso-demo';
import type { OrganizationsPlugin } from '../../src/organizations';
import type { SsoPlugin } from '../../src/plugins/sso';
import { freePort } from '../support/ports';
import { eventually } from '../support/eventually';
import { captcha } from '../../src/captcha';
import { startCaptchaPeer, type CaptchaPeer } from '../support/captcha-peer';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { startUiApp, uiPage, uiScript } from '../support/ui-bundle';
import { turnOnTwoFactor } from '../support/ui-steps';
import type { Locator } from 'playwright-core';

/** A list redraws after its status line is said, so a count is waited for, not read once. */
const countIs = (locator: Locator, expected: number): Promise<void> => eventually(async () => expect(await locator.count()).toBe(expected), 5000, 100);

const run = browserUnavailableReason() && !browserRequired ? describe.skip : describe;

/** Whether the page, at a phone's width (390 px), needs no sideways scrolling: every screen's box inside the viewport. */
async function fitsPhone(page: Page): Promise<string[]> {
  await page.setViewportSize({ width: 390, height: 844 });
  return page.evaluate(() => {
    const wide: string[] = [];
    if (document.documentElement.scrollWidth > 390) wide.push(`page ${document.documentElement.scrollWidth}px`);
    for (const host of document.querySelectorAll('*')) {
      if (!host.localName.startsWith('authgate-') || host.shadowRoot === null) continue;
      for (const node of host.shadowRoot.querySelectorAll('*')) if (node.getBoundingClientRect().right > 391) wide.push(`${host.localName} ${node.localName}.${node.className}`);
    }
    return wide;
  });
}

/** What axe-core finds on the page (WCAG 2.0 to 2.2, A and AA, and its best practices), as `rule (nodes)`. */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ url: '/axe.js' });
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
    });
    return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
  });
}

describe('authgate/ui: size', () => {
  it('the screens, minified and gzipped with the client they use, stay under 30 KB; each screen alone is smaller', () => {
    const size = gzipSync(uiScript({ minify: true })).length;
    expect(size).toBeLessThan(30 * 1024);
    for (const screen of ['sign-in', 'sign-up', 'user-button', 'account', 'organization', 'org-switcher']) expect(gzipSync(uiScript({ minify: true, screen })).length).toBeLessThan(size);
  });
});

run('<authgate-sign-in> in chromium, under a strict CSP', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  const mailed: string[] = [];

  beforeAll(async () => {
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const { app } = makeApp({ url, translations: { messages: { ar: { 'ui.signIn.title': 'تسجيل الدخول' } } } }, (auth) => {
          auth.addVerifyProvider(
            'email',
            'link {{.Token}} ',
            senderFunc((_to, text) => void mailed.push(/link (\S+)/.exec(text)![1]!)),
          );
          auth.addProvider('github', 'ui-test', 'ui-test-secret');
        });
        // A page whose redirect comes from the query (as ?next= often does), and an app path that answers junk.
        app.get(
          '/hostile',
          (req, res) => void res.type('html').send(uiPage('Next', `<main><h1>Next</h1><authgate-sign-in redirect="${String(req.query.next).replace(/"/g, '&quot;')}"></authgate-sign-in></main>`)),
        );
        app.get('/elsewhere', (_req, res) => void res.type('html').send(uiPage('Elsewhere', '<main><h1>Elsewhere</h1><authgate-sign-in base-url="http://127.0.0.1:9"></authgate-sign-in></main>')));
        app.get('/junk/screens', (_req, res) => void res.json({ lang: 'en', dir: 'ltr', words: null, providers: [{ name: 'x' }], plugins: [] }));
        app.get('/junk', (_req, res) => void res.type('html').send(uiPage('Junk', '<main><h1>Junk</h1><authgate-sign-in auth-path="/junk"></authgate-sign-in></main>')));
        return app;
      },
      uiPage('Sign in', '<main><h1>Example app</h1><authgate-sign-in></authgate-sign-in></main>'),
    ));
  }, 60_000);
  afterAll(() => close?.());

  /** The page with the screen drawn, and what the page saw: CSP violations and the sign-in events. */
  async function open(context: BrowserContext): Promise<{ page: Page; violations: string[] }> {
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
    await page.goto(base);
    await page.evaluate(() => {
      const seen: unknown[] = [];
      (window as unknown as { signedIn: unknown[] }).signedIn = seen;
      document.addEventListener('authgate-signed-in', (event) => seen.push((event as CustomEvent).detail));
    });
    await page.waitForSelector('authgate-sign-in h2');
    return { page, violations };
  }

  it('shows only what the server turned on, passes axe, and signs in with the keyboard alone', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const { page, violations } = await open(context);
    const buttons = await page.locator('authgate-sign-in button:not(.reveal)').allTextContents();
    expect(buttons).toEqual(['Sign in', 'Continue with GitHub', 'E-mail me a sign-in link']);
    await countIs(page.locator('authgate-sign-in >> text=Continue with SSO'), 0);
    const found = await axeViolations(page);
    expect(found).toEqual([]);
    expect(await fitsPhone(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    // Keyboard only: Tab to the first field, type, Tab, type, Enter.
    await page.keyboard.press('Tab');
    await page.keyboard.type('kim');
    await page.keyboard.press('Tab');
    await page.keyboard.type('wrong');
    await page.keyboard.press('Enter');
    const alert = page.locator('authgate-sign-in [role=alert]');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Incorrect user or password.');
    expect(await page.evaluate(() => document.querySelector('authgate-sign-in')!.shadowRoot!.activeElement?.getAttribute('role'))).toBe('alert');
    // From the error above the form, Tab reaches the user field, then the password.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('pw');
    await page.keyboard.press('Enter');
    await page.locator('authgate-sign-in [role=status] >> text=Signed in as kim.').waitFor();
    expect(await page.evaluate(() => (window as unknown as { signedIn: Array<{ name: string }> }).signedIn.map((u) => u.name))).toEqual(['kim']);
    expect((await context.cookies(base)).find((c) => c.name === 'JWT')).toMatchObject({ httpOnly: true });
    expect(await page.evaluate(() => [Object.keys(localStorage).length, Object.keys(sessionStorage).length, document.cookie.includes('JWT')])).toEqual([0, 0, false]);
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);

  it('follows a redirect only to a page of this site: another site or javascript: is refused, and the person stays', async () => {
    for (const next of ['https://evil.example/phish', '//evil.example/x', '/\\evil.example', 'javascript:window.__xss=1']) {
      const context = await browser.newContext({ locale: 'en-US' });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
      await page.goto(`${base}/hostile?next=${encodeURIComponent(next)}`);
      await page.waitForSelector('authgate-sign-in h2');
      await page.fill('authgate-sign-in input[name=user]', 'nia');
      await page.fill('authgate-sign-in input[name=password]', 'pw');
      await page.click('authgate-sign-in button[type=submit]');
      await page.locator('authgate-sign-in [role=status] >> text=Signed in as nia.').waitFor();
      await page.waitForTimeout(200);
      expect([next, new URL(page.url()).origin, await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)]).toEqual([next, base, undefined]);
      expect(errors.join('\n')).toMatch(/is not a page of this site: not followed/);
      await context.close();
    }
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${base}/hostile?next=${encodeURIComponent('/after?x=1')}`);
    await page.fill('authgate-sign-in input[name=user]', 'nia');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.waitForURL(`${base}/after?x=1`);
    await context.close();
  }, 60_000);

  it('says so, in an alert and to the developer, when the screen configuration is not one (a wrong auth-path, a proxy page)', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    await page.goto(`${base}/junk`);
    await page.locator('authgate-sign-in [role=alert] >> text=authgate: the sign-in settings could not be loaded.').waitFor();
    expect(errors.join('\n')).toMatch(/<authgate-sign-in>: \/junk\/screens did not answer a screen configuration \(is the auth router mounted there\? see the base-url and auth-path attributes\)/);
    await context.close();
  }, 60_000);

  it('refuses a base-url of another origin (an injected element must not send passwords elsewhere) and uses the page’s own', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    await page.goto(`${base}/elsewhere`);
    await page.locator('authgate-sign-in h2 >> text=Sign in').waitFor();
    expect(errors.join('\n')).toMatch(/base-url "http:\/\/127\.0\.0\.1:9" is another origin, not allowed by allowOrigins\(\): the page's own is used/);
    await context.close();
  }, 60_000);

  it('follows the page’s color scheme (a light page stays light in a dark system), and the theme attribute forces one', async () => {
    const context = await browser.newContext({ locale: 'en-US', colorScheme: 'dark' });
    const { page } = await open(context);
    const colour = (): Promise<string> => page.evaluate(() => getComputedStyle(document.querySelector('authgate-sign-in')!.shadowRoot!.querySelector('h2')!).color);
    expect(await colour()).toBe('rgb(31, 41, 51)');
    await page.evaluate(() => document.documentElement.style.setProperty('color-scheme', 'light dark'));
    expect(await colour()).toBe('rgb(243, 244, 246)');
    await page.evaluate(() => {
      document.documentElement.style.setProperty('color-scheme', 'light');
      document.querySelector('authgate-sign-in')!.setAttribute('theme', 'dark');
    });
    expect(await colour()).toBe('rgb(243, 244, 246)');
    await context.close();
  }, 60_000);

  it('mails a sign-in link from the e-mail form, and the link signs in', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const { page } = await open(context);
    await page.fill('authgate-sign-in input[name=address]', 'lee@example.com');
    await page.click('authgate-sign-in >> text=E-mail me a sign-in link');
    await page.locator('authgate-sign-in [role=status] >> text=We sent a sign-in link to lee@example.com. Open it on this device.').waitFor();
    const token = mailed.pop()!;
    const signedIn = await page.goto(`${base}/auth/email/login?token=${token}`);
    expect(signedIn?.status()).toBe(200);
    expect((await context.cookies(base)).find((c) => c.name === 'JWT')).toBeDefined();
    await context.close();
  }, 60_000);

  it('speaks the browser’s language, and turns right to left for a language written that way', async () => {
    const german = await browser.newContext({ locale: 'de-DE' });
    const { page } = await open(german);
    expect(await page.locator('authgate-sign-in h2').textContent()).toBe('Anmelden');
    expect(await page.getAttribute('authgate-sign-in', 'lang')).toBe('de');
    expect(await page.locator('authgate-sign-in button[type=submit]').first().textContent()).toBe('Anmelden');
    await german.close();
    const arabic = await browser.newContext({ locale: 'ar' });
    const rtl = await open(arabic);
    expect(await rtl.page.locator('authgate-sign-in h2').textContent()).toBe('تسجيل الدخول');
    expect(await rtl.page.getAttribute('authgate-sign-in', 'dir')).toBe('rtl');
    await arabic.close();
  }, 60_000);
});

run('<authgate-sign-up>, the reset flow and <authgate-user-button> with the account service and organizations', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  let smtp: SmtpPeer;

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const accountsPlugin = accounts({
          store: 'memory://',
          sender: new EmailSender({ host: '127.0.0.1', port: smtp.port, from: 'accounts@app.example', timeout: 5000 }),
          baseUrl: `${url}/account`,
          bcryptRounds: 4,
        });
        const orgs = organizations({ sender: senderFunc(() => undefined) });
        const { app } = makeApp({ url, plugins: [accountsPlugin, orgs, apiKeys()], twoFactor: { key: 'ui-two-factor-key-0123456789abcdef' } });
        app.use('/account', accountsPlugin.router);
        return app;
      },
      uiPage(
        'App',
        '<header><authgate-user-button></authgate-user-button></header><main><h1>App</h1><authgate-sign-up sign-in-href="/#sign-in"></authgate-sign-up><authgate-sign-in sign-up-href="javascript:alert(1)"></authgate-sign-in><authgate-account></authgate-account></main>',
      ),
    ));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await smtp?.close();
  });

  it('signs up, activates from the mail, signs in by e-mail, switches organization and signs out; then resets a forgotten password', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
    await page.goto(base);
    await page.waitForSelector('authgate-sign-up h2');
    expect(await axeViolations(page)).toEqual([]);
    // The link to the other screen is there for a page of this site, and left out for anything else.
    expect(await page.locator('authgate-sign-up a').getAttribute('href')).toBe(`${base}/#sign-in`);
    await countIs(page.locator('authgate-sign-in a'), 0);
    // "Show" shows the password typed, and says it is pressed.
    await page.fill('authgate-sign-up input[name=password]', 'peek');
    await page.click('authgate-sign-up button.reveal');
    expect([await page.getAttribute('authgate-sign-up input[name=password]', 'type'), await page.getAttribute('authgate-sign-up button.reveal', 'aria-pressed')]).toEqual(['text', 'true']);
    await page.click('authgate-sign-up button.reveal');
    expect(await page.getAttribute('authgate-sign-up input[name=password]', 'type')).toBe('password');
    const since = smtp.mails.length;
    await page.fill('authgate-sign-up input[name=email]', 'Robin@Example.com');
    await page.fill('authgate-sign-up input[name=password]', 'a long first passphrase');
    await page.click('authgate-sign-up button[type=submit]');
    await page.locator('authgate-sign-up [role=status] >> text=We sent a link to Robin@Example.com. Open it to activate your account.').waitFor();
    const mail = await mailTo(smtp, 'robin@example.com', since);
    const link = /(http:\/\/\S+\/active\/\S+)/.exec(mail.body)![1]!;
    expect((await page.request.get(link)).status()).toBe(200);

    await page.fill('authgate-sign-in input[name=user]', 'robin@example.com');
    await page.fill('authgate-sign-in input[name=password]', 'a long first passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=/^Signed in as /').waitFor();
    // The sign-up screen says the person has an account; the user button shows them at once.
    await page.locator('authgate-sign-up >> text=You are signed in as robin@example.com: you have an account.').waitFor();
    const toggle = page.locator('authgate-user-button button.user');
    await toggle.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await page.request.post(`${base}/auth/orgs`, {
      data: { name: 'Robin Co', slug: 'robin-co' },
      headers: { 'X-XSRF-TOKEN': (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value },
    });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    // Escape closes the list and gives the focus back; so does a click elsewhere on the page.
    await page.keyboard.press('Escape');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.querySelector('authgate-user-button')!.shadowRoot!.activeElement?.className)).toBe('user');
    await toggle.click();
    await page.click('h1');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await page.locator('authgate-user-button button >> text=Robin Co').click();
    await page.locator('authgate-user-button [role=status] >> text=You now act in Robin Co.').waitFor();
    expect(await page.locator('authgate-user-button button[aria-current=true]').textContent()).toBe('Robin Co');
    expect(await page.evaluate(() => document.querySelector('authgate-user-button')!.shadowRoot!.activeElement?.textContent)).toBe('Robin Co');
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('authgate-user-button button >> text=Sign out').click();
    await page.locator('authgate-user-button button.user').waitFor({ state: 'detached' });
    // No stale news: neither "please wait" in the button nor "signed in as" in the sign-in screen, which shows its form again.
    expect(await page.locator('authgate-user-button [role=status]').textContent()).toBe('');
    await page.locator('authgate-sign-in input[name=user]').waitFor();
    expect(await page.locator('authgate-sign-in [role=status]').textContent()).toBe('');
    expect((await context.cookies(base)).find((c) => c.name === 'JWT')).toBeUndefined();

    const resetSince = smtp.mails.length;
    await page.click('authgate-sign-in >> text=Forgot your password?');
    await page.fill('authgate-sign-in input[name=email]', 'robin@example.com');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in h2 >> text=Choose a new password').waitFor();
    // The second factor's field waits hidden until the server asks for it.
    expect(await page.locator('authgate-sign-in input[name=otp]').isVisible()).toBe(false);
    const resetMail = await mailTo(smtp, 'robin@example.com', resetSince);
    // The mail says "The code is:" and gives the code on the next line.
    const code = /The code is:\s*\n(\S+)/.exec(resetMail.body)![1]!;
    await page.fill('authgate-sign-in input[name=code]', 'not-the-code');
    await page.fill('authgate-sign-in input[name=password]', 'a second long passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=alert]').waitFor();
    expect(await page.locator('authgate-sign-in [role=alert]').textContent()).not.toBe('');
    await page.fill('authgate-sign-in input[name=code]', code);
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=Your password is changed. Sign in with it.').waitFor();
    await page.fill('authgate-sign-in input[name=user]', 'robin@example.com');
    await page.fill('authgate-sign-in input[name=password]', 'a second long passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-user-button button.user').waitFor();
    expect(violations).toEqual([]);
    await context.close();
  }, 90_000);

  it('the account screen shows the account service’s parts only to its own logins (another provider’s person has no profile or password here)', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'lou');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-account section[aria-labelledby=sessions] li').first().waitFor();
    const headings = await page.locator('authgate-account h3').allTextContents();
    expect(headings).toEqual(['Where you are signed in', 'Two-step verification', 'API keys', 'Recent activity']);
    await countIs(page.locator('authgate-account section p.error'), 0);
    await context.close();
  }, 60_000);

  it('the account screen: saves a name, ends the other sessions, makes an API key shown once, turns two-step verification on with the QR code and a first code, changes the password and the e-mail address; the next sign-in asks for the second factor', async () => {
    const signIn = async (page: Page, password: string, email = 'robin@example.com'): Promise<void> => {
      await page.goto(base);
      await page.fill('authgate-sign-in input[name=user]', email);
      await page.fill('authgate-sign-in input[name=password]', password);
      await page.click('authgate-sign-in button[type=submit]');
    };
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.locator('authgate-account >> text=Sign in to see your account.').waitFor();
    await signIn(page, 'a second long passphrase');
    // The screen follows the session: it draws the account once signed in.
    await page.locator('authgate-account h2 >> text=Your account').waitFor();
    // The profile: a name saved, and there after a reload.
    await page.fill('authgate-account input[name=FirstName]', 'Robin');
    await page.click('authgate-account section[aria-labelledby=profile] >> text=Save');
    await page.locator('authgate-account [role=status] >> text=Saved.').waitFor();
    const elsewhere = await browser.newContext({ locale: 'en-US' });
    await signIn(await elsewhere.newPage(), 'a second long passphrase');
    await page.reload();
    await page.locator('authgate-account #sessions ~ div li >> nth=1').waitFor();
    // This device, the other browser, and the session the first test left.
    await countIs(page.locator('authgate-account section[aria-labelledby=sessions] li'), 3);
    await countIs(page.locator('authgate-account section[aria-labelledby=sessions] li >> text=/^This device/'), 1);
    expect(await axeViolations(page)).toEqual([]);
    await page.click('authgate-account >> text=Sign out everywhere else');
    await page.locator('authgate-account [role=status] >> text=That session is ended.').waitFor();
    await countIs(page.locator('authgate-account section[aria-labelledby=sessions] li'), 1);
    expect((await (await elsewhere.newPage()).request.get(`${base}/auth/user`)).status()).toBe(401);
    await elsewhere.close();

    await page.fill('authgate-account input[name=name]', 'deploy bot');
    await page.click('authgate-account >> text=Create key');
    const key = await page.locator('authgate-account code.secret').textContent();
    expect(key).toMatch(/^agk_/);
    expect(await page.locator('authgate-account section[aria-labelledby=api-keys] li').first().textContent()).toMatch(/^deploy bot \(agk_/);
    expect((await page.request.get(`${base}/private`, { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(200);

    await page.click('authgate-account >> text=Turn on');
    const secret = (await page.locator('authgate-account section[aria-labelledby=two-factor] p code').textContent())!;
    expect(await page.locator('authgate-account section[aria-labelledby=two-factor] img').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(await axeViolations(page)).toEqual([]);
    expect(await fitsPhone(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await awayFromStepEdge();
    await page.fill('authgate-account section[aria-labelledby=two-factor] input[name=code]', codeNow(secret));
    await page.click('authgate-account section[aria-labelledby=two-factor] button[type=submit]');
    await page.locator('authgate-account [role=status] >> text=Two-step verification is on.').waitFor();
    expect(await page.locator('authgate-account ul.codes li').count()).toBeGreaterThanOrEqual(8);
    const recovery = (await page.locator('authgate-account ul.codes li').first().textContent())!;
    await page.click('authgate-account >> text=I saved them');
    await page.locator('authgate-account >> text=/^On\\. \\d+ recovery codes left\\.$/').waitFor();

    // A new password ends every session of the account, this one too: the sign-in screen says so, the address filled in.
    await page.fill('authgate-account input[name=current]', 'a second long passphrase');
    await page.fill('authgate-account section[aria-labelledby=password] input[name=password]', 'a third long passphrase');
    await page.click('authgate-account >> text=Change password');
    await page.locator('authgate-sign-in [role=status] >> text=/^Your password is changed, and that ended your sessions/').waitFor();
    expect(await page.locator('authgate-sign-in input[name=user]').inputValue()).toBe('robin@example.com');
    await page.fill('authgate-sign-in input[name=password]', 'a third long passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    await page.fill('authgate-sign-in input[name=code]', recovery);
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-account input[name=FirstName]').waitFor();
    expect(await page.locator('authgate-account input[name=FirstName]').inputValue()).toBe('Robin');

    // A new e-mail address: asked with the password, confirmed with the code mailed to it.
    const since = smtp.mails.length;
    await page.fill('authgate-account input[name=email]', 'robin.new@example.com');
    await page.fill('authgate-account section[aria-labelledby=profile] input[name=password]', 'a third long passphrase');
    await page.click('authgate-account >> text=Change e-mail address');
    await page.locator('authgate-account [role=status] >> text=We sent a code to robin.new@example.com. Enter it to confirm the new address.').waitFor();
    const mail = await mailTo(smtp, 'robin.new@example.com', since);
    const code = /The code that confirms it is:\s*\n(\S+)/.exec(mail.body)![1]!;
    await page.fill('authgate-account input[name=code]', code);
    await page.click('authgate-account section[aria-labelledby=profile] button[type=submit] >> text=Verify');
    await page.locator('authgate-account [role=status] >> text=Your e-mail address is changed.').waitFor();
    await context.close();

    // Signing in again now asks for the second factor, in the same screen.
    const again = await browser.newContext({ locale: 'en-US' });
    const next = await again.newPage();
    await signIn(next, 'a third long passphrase', 'robin.new@example.com');
    await next.locator('authgate-sign-in h2 >> text=Enter the code from your authenticator app').waitFor();
    expect(await next.evaluate(() => document.querySelector('authgate-sign-in')!.shadowRoot!.activeElement?.getAttribute('name'))).toBe('code');
    await next.fill('authgate-sign-in input[name=code]', '000000');
    await next.click('authgate-sign-in button[type=submit]');
    await next.locator('authgate-sign-in [role=alert]').waitFor();
    expect(await next.locator('authgate-sign-in [role=alert]').textContent()).not.toBe('');
    // The code of the next 30 s: the current one was used to turn two-step on, and a used code is refused.
    await awayFromStepEdge();
    await next.fill('authgate-sign-in input[name=code]', codeNow(secret, 1));
    await next.click('authgate-sign-in button[type=submit]');
    await next.locator('authgate-sign-in [role=status] >> text=/^Signed in as /').waitFor();
    await again.close();
  }, 90_000);
});

run('the screens as React components (authgate/react) in chromium', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const entry = `
      import { createElement, useState } from 'react';
      import { createRoot } from 'react-dom/client';
      import './src/ui/index';
      import { SignIn, UserButton } from './src/react';
      function App() {
        const [said, say] = useState('nobody yet');
        return createElement('main', {},
          createElement('h1', {}, 'React app'),
          createElement(UserButton, { onSignedOut: () => say('signed out') }),
          createElement(SignIn, { onSignedIn: (user) => say('hello ' + user.name) }),
          createElement('p', { id: 'said' }, said));
      }
      createRoot(document.getElementById('root')).render(createElement(App));`;
    const bundle = buildSync({
      stdin: { contents: entry, resolveDir: join(__dirname, '..', '..'), loader: 'ts' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0]!.text;
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const { app } = makeApp({ url });
        app.get('/app.mjs', (_req, res) => void res.type('js').send(script));
        return app;
      },
      uiPage('React', '<div id="root"></div>', '/app.mjs'),
    ));
  }, 60_000);
  afterAll(() => close?.());

  it('calls onSignedIn and onSignedOut with what the elements said', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'ria');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('#said >> text=hello ria').waitFor();
    await page.click('authgate-user-button button.user');
    await page.click('authgate-user-button >> text=Sign out');
    await page.locator('#said >> text=signed out').waitFor();
    await context.close();
  }, 60_000);
});

run('<authgate-organization> and <authgate-org-switcher> in chromium', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  const invitations: string[] = [];
  let dns: DnsPeer;
  let orgsPlugin: OrganizationsPlugin;

  beforeAll(async () => {
    dns = await startDnsPeer();
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const orgs = organizations({ sender: senderFunc((_to, text) => void invitations.push(/(http\S+)/.exec(text)![1]!)) });
        orgsPlugin = orgs;
        const ssoPlugin = sso({ key: 'ui-sso-key-0123456789abcdef0123456789', dns: { servers: [dns.server], timeoutMs: 1000 } });
        const { app } = makeApp({ url, plugins: [orgs, ssoPlugin, scim()] });
        app.get('/framer', (_req, res) => void res.type('html').send(uiPage('Framer', '<main><h1>Framer</h1><iframe src="/" title="The app"></iframe></main>')));
        return app;
      },
      uiPage('Team', '<header><authgate-org-switcher></authgate-org-switcher></header><main><h1>Team</h1><authgate-sign-in></authgate-sign-in><authgate-organization></authgate-organization></main>'),
    ));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await dns?.close();
  });

  it('an owner invites, cancels, invites again; the invited person joins; the owner changes their role and removes them; the switcher moves to another organization', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const signIn = async (p: Page, user: string): Promise<void> => {
      await p.goto(base);
      await p.fill('authgate-sign-in input[name=user]', user);
      await p.fill('authgate-sign-in input[name=password]', 'pw');
      await p.click('authgate-sign-in button[type=submit]');
      await p.locator('authgate-sign-in [role=status] >> text=/^Signed in as /').waitFor();
    };
    await signIn(page, 'olga');
    await page.locator('authgate-organization >> text=You are in no organization yet.').waitFor();
    const xsrf = (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value;
    for (const [name, slug] of [
      ['Olga Works', 'olga-works'],
      ['Side Project', 'side-project'],
    ])
      expect((await page.request.post(`${base}/auth/orgs`, { data: { name, slug }, headers: { 'X-XSRF-TOKEN': xsrf } })).status()).toBe(201);
    await page.reload();
    await page.locator('authgate-organization h2').waitFor();
    const shown = await page.locator('authgate-organization h2').textContent();
    expect(['Olga Works', 'Side Project']).toContain(shown);
    if (shown !== 'Olga Works') {
      await page.selectOption('authgate-org-switcher select', 'olga-works');
      await page.locator('authgate-org-switcher [role=status] >> text=You now act in Olga Works.').waitFor();
    }
    await page.locator('authgate-organization h2 >> text=Olga Works').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(await fitsPhone(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.fill('authgate-organization input[name=email]', 'sam@example.com');
    await page.selectOption('authgate-organization select[name=role]', 'admin');
    await page.click('authgate-organization >> text=Invite');
    await page.locator('authgate-organization section[aria-labelledby=invitations] li >> text=sam@example.com').waitFor();
    await page.click('authgate-organization section[aria-labelledby=invitations] >> text=Cancel');
    await page.locator('authgate-organization [role=status] >> text=sam@example.com is removed.').waitFor();
    await countIs(page.locator('authgate-organization section[aria-labelledby=invitations] li'), 0);
    await page.fill('authgate-organization input[name=email]', 'sam@example.com');
    await page.click('authgate-organization >> text=Invite');
    await page.locator('authgate-organization section[aria-labelledby=invitations] li >> text=sam@example.com').waitFor();

    const samContext = await browser.newContext({ locale: 'en-US' });
    const sam = await samContext.newPage();
    await signIn(sam, 'sam');
    // The mailed link is <url>/#invitation=<token>.
    const token = new URL(invitations.at(-1)!).hash.replace(/^#invitation=/, '');
    const samXsrf = (await samContext.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value;
    expect((await sam.request.post(`${base}/auth/orgs/invitations/accept`, { data: { token }, headers: { 'X-XSRF-TOKEN': samXsrf } })).status()).toBe(200);
    await samContext.close();

    await page.reload();
    const samRole = page.locator('authgate-organization select[aria-label="Role of sam"]');
    await samRole.waitFor();
    // An arrow key on the closed select changes nothing: the role is saved by its button.
    await samRole.focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(300);
    expect((await page.locator('authgate-organization [role=status]').allTextContents()).join('')).toBe('');
    await samRole.selectOption('admin');
    await page.click('authgate-organization section[aria-labelledby=members] li:has-text("sam") >> text=Change role');
    await page.locator('authgate-organization [role=status] >> text=sam is now admin.').waitFor();
    // Each member's row says the address they were invited at, beside the name they chose.
    expect(await page.locator('authgate-organization section[aria-labelledby=members] li:has-text("sam") bdi').allTextContents()).toEqual([
      'sam',
      expect.stringMatching(/^sam@example\.com · admin · /),
    ]);
    await page.click('authgate-organization section[aria-labelledby=members] li:has-text("sam") >> text=Remove');
    await page.locator('authgate-organization [role=status] >> text=sam is removed.').waitFor();
    await countIs(page.locator('authgate-organization section[aria-labelledby=members] li'), 1);

    // The owner's single sign-on: a domain proved by its TXT record, and the connection set-up page.
    await page.fill('authgate-organization input[name=domain]', 'olga.example');
    await page.click('authgate-organization >> text=Add domain');
    const row = page.locator('authgate-organization section[aria-labelledby=sso] li:has-text("olga.example")');
    await row.locator('text=/add a TXT record/').waitFor();
    const [, name, value] = /add a TXT record (\S+) with the value (\S+), then verify/.exec((await row.textContent())!)!;
    dns.txt.set(name!, [value!]);
    await row.locator('button', { hasText: 'Verify' }).click();
    await page.locator('authgate-organization [role=status] >> text=olga.example is verified.').waitFor();
    await page.locator('authgate-organization section[aria-labelledby=sso] li:has-text("olga.example") >> text=· verified').waitFor();
    expect(await page.locator('authgate-organization section[aria-labelledby=sso] a').getAttribute('href')).toBe('/auth/orgs/olga-works/sso');
    // A SCIM token for the directory, shown once, then revoked.
    await page.fill('authgate-organization section[aria-labelledby=scim] input[name=name]', 'okta');
    await page.click('authgate-organization section[aria-labelledby=scim] button[type=submit]');
    const scimToken = (await page.locator('authgate-organization section[aria-labelledby=scim] code.secret').textContent())!;
    expect(scimToken.length).toBeGreaterThan(20);
    expect((await page.request.get(`${base}/auth/scim/v2/Users`, { headers: { Authorization: `Bearer ${scimToken}` } })).status()).toBe(200);
    await page.click('authgate-organization section[aria-labelledby=scim] li >> text=Revoke');
    await page.locator('authgate-organization [role=status] >> text=okta is removed.').waitFor();
    expect((await page.request.get(`${base}/auth/scim/v2/Users`, { headers: { Authorization: `Bearer ${scimToken}` } })).status()).toBe(401);
    expect(await axeViolations(page)).toEqual([]);

    await page.selectOption('authgate-org-switcher select', 'side-project');
    await page.locator('authgate-organization h2 >> text=Side Project').waitFor();
    await context.close();
  }, 90_000);

  it('a directory-sized organization shows its members a page at a time: "Show more members" adds the next page', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'mira');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=/^Signed in as /').waitFor();
    const xsrf = (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value;
    const made = await page.request.post(`${base}/auth/orgs`, { data: { name: 'Big Directory', slug: 'big-directory' }, headers: { 'X-XSRF-TOKEN': xsrf } });
    expect(made.status()).toBe(201);
    const owner = { id: ((await (await page.request.get(`${base}/auth/user`, { headers: { 'X-XSRF-TOKEN': xsrf } })).json()) as { id: string }).id, stepUp: async () => undefined };
    // 130 people join by invitation, as a directory's sync would add them.
    for (let i = 0; i < 130; i++) {
      const email = `person${String(i).padStart(3, '0')}@big.example`;
      await orgsPlugin.service.invite('big-directory', owner, { email, roles: ['member'] });
      const token = new URL(invitations.at(-1)!).hash.replace(/^#invitation=/, '');
      await orgsPlugin.service.accept({ id: `local_person${i}`, name: `person ${i}`, email, picture: '' }, token);
    }
    await page.reload();
    await page.selectOption('authgate-org-switcher select', 'big-directory');
    await page.locator('authgate-organization h2 >> text=Big Directory').waitFor();
    const rows = page.locator('authgate-organization section[aria-labelledby=members] li');
    await countIs(rows, 100);
    await page.click('authgate-organization >> text=Show more members');
    await page.locator('authgate-organization [role=status] >> text=131 members shown.').waitFor();
    await countIs(rows, 131);
    expect(await page.locator('authgate-organization >> text=Show more members').count()).toBe(0);
    // Every member once: the pages neither overlap nor skip.
    expect(new Set(await rows.allTextContents()).size).toBe(131);
    await context.close();
  }, 90_000);

  it('in a frame of another page, the organization screen refuses its changes (clickjacking) and says why to the developer', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'olga');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-organization h2').waitFor();
    await page.goto(`${base}/framer`);
    const frame = page.frameLocator('iframe');
    await frame.locator('authgate-organization input[name=email]').fill('framed@example.com');
    await frame.locator('authgate-organization button[type=submit]', { hasText: 'Invite' }).click();
    await frame.locator('authgate-organization [role=alert]').waitFor();
    expect(errors.join('\n')).toMatch(/<authgate-organization>: inside a frame, changes are refused \(clickjacking\); add allow-framed if the framing page is yours/);
    await countIs(frame.locator('authgate-organization section[aria-labelledby=invitations] li'), 0);
    await context.close();
  }, 60_000);
});

run('passkeys in the screens: added on the account screen, then signing in with one', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ base, browser, close } = await startUiApp(
      (url) =>
        makeApp({ url }, (auth) => {
          auth.addPasskeyProvider('passkey', { rpName: 'screens test', userIdOf: async (name) => hashId('local', name) });
        }).app,
      // The passkey ceremonies need @simplewebauthn/browser: the page loads the provider's copy of it.
      uiPage('Passkeys', '<script src="/auth/passkey/client.js"></script><main><h1>Passkeys</h1><authgate-sign-in></authgate-sign-in><authgate-account></authgate-account></main>'),
      'localhost',
    ));
  }, 60_000);
  afterAll(() => close?.());

  it('adds a passkey from the account screen, signs out, offers it in the autofill, and signs in with the passkey button', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
    await page.goto(base);
    await virtualAuthenticator(page);
    await page.fill('authgate-sign-in input[name=user]', 'pia');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-account section[aria-labelledby=passkeys] >> text=None yet.').waitFor();
    await page.click('authgate-account >> text=Add a passkey');
    await page.locator('authgate-account [role=status] >> text=/ is added\\.$/').waitFor();
    await countIs(page.locator('authgate-account section[aria-labelledby=passkeys] li'), 1);
    const xsrf = (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value;
    expect((await page.request.post(`${base}/auth/logout`, { headers: { 'X-XSRF-TOKEN': xsrf } })).status()).toBe(200);
    // The sign-in screen offers the passkeys in the browser's autofill at once (conditional mediation: its
    // options are asked on load); the button cancels that and asks in a dialog of its own.
    const asked: string[] = [];
    page.on('request', (req) => void (req.method() === 'POST' && req.url().endsWith('/auth/passkey/login') && asked.push(req.postData() ?? '')));
    await page.reload();
    await page.locator('authgate-sign-in h2').waitFor();
    await eventually(async () => expect(asked.length).toBe(1));
    await page.click('authgate-sign-in >> text=Sign in with a passkey');
    await page.locator('authgate-sign-in [role=status] >> text=Signed in as pia.').waitFor();
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);
});

run('single sign-on from the sign-in screen, with the example’s customer IdP (samlify) on another port', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  let demo: SsoDemo;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authgate-ui-sso-'));
    demo = await startSsoDemo(await freePort(), join(dir, 'customer-idp.json'));
    let plugins: { orgs: OrganizationsPlugin; sso: SsoPlugin } | undefined;
    ({ base, browser, close } = await startUiApp(
      (url) => {
        plugins = {
          orgs: organizations({ sender: senderFunc(() => undefined) }),
          sso: sso({ key: 'ui-sso-demo-key-0123456789abcdef0123456789', privateOrigins: [demo.config.customerIdpOrigin], dns: { servers: [demo.config.ssoDns], timeoutMs: 1000 } }),
        };
        return makeApp({ url, plugins: [plugins.orgs, plugins.sso] }).app;
      },
      uiPage('SSO', '<header><authgate-user-button></authgate-user-button></header><main><h1>SSO</h1><authgate-sign-in redirect="/"></authgate-sign-in></main>'),
    ));
    await demo.setUp(plugins!, `${base}/auth`);
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await demo?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the work e-mail goes to the organization’s IdP, and the person comes back signed in', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=email]', 'someone@customer.test');
    await page.click('authgate-sign-in >> text=Continue with SSO');
    await page.waitForSelector('#idp-sign-in');
    expect(new URL(page.url()).origin).toBe(demo.config.customerIdpOrigin);
    await page.fill('#idp-name', 'Sky Customer');
    await page.click('#idp-sign-in');
    await page.waitForURL(`${base}/`);
    await page.locator('authgate-user-button button.user >> text=Sky Customer').waitFor();
    await context.close();
  }, 60_000);
});

run('a CAPTCHA the server asks for, solved by the page’s widget (useCaptcha), with the siteverify stand-in', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  let peer: CaptchaPeer;

  beforeAll(async () => {
    peer = await startCaptchaPeer('captcha-secret');
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const { app } = makeApp({
          url,
          plugins: [captcha({ service: 'turnstile', secret: 'captcha-secret', verifyUrl: `${peer.origin}/turnstile/v0/siteverify`, actions: { login: 'always' } })],
        });
        // The page's widget: the first time the person gives up, the second time it answers.
        app.get(
          '/widget.mjs',
          (_req, res) =>
            void res
              .type('js')
              .send(
                "import { useCaptcha } from '/ui.mjs'; let asked = 0; useCaptcha(async (call) => { asked += 1; window.asked = [...(window.asked ?? []), call.path]; return asked === 1 ? undefined : 'good-token'; });",
              ),
        );
        return app;
      },
      uiPage('CAPTCHA', '<main><h1>CAPTCHA</h1><authgate-sign-in></authgate-sign-in></main><script type="module" src="/widget.mjs"></script>'),
    ));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await peer?.close();
  });

  it('shows the refusal when the widget gives up, and signs in with its token the next time', async () => {
    peer.issue('good-token', { hostname: '127.0.0.1', action: 'login' });
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'cai');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=alert]').waitFor();
    expect(await page.locator('authgate-sign-in [role=alert]').textContent()).not.toBe('');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=Signed in as cai.').waitFor();
    expect(await page.evaluate(() => (window as unknown as { asked: string[] }).asked)).toEqual(['/auth/local/login', '/auth/local/login']);
    expect(peer.requests.map((r) => r.form.response)).toEqual(['good-token']);
    await context.close();
  }, 60_000);
});

run('a change that needs a fresh login, on the account screen (stepUpMaxAge 10 s)', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ base, browser, close } = await startUiApp(
      (url) => makeApp({ url, stepUpMaxAge: 10_000, twoFactor: { key: 'ui-step-up-key-0123456789abcdef01' } }).app,
      uiPage('Step-up', '<main><h1>Step-up</h1><authgate-sign-in></authgate-sign-in><authgate-account></authgate-account></main>'),
    ));
  }, 60_000);
  afterAll(() => close?.());

  it('asks for a code under the refusal, makes the login fresh with it and makes the change; a wrong code changes nothing', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await page.fill('authgate-sign-in input[name=user]', 'sky');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    const part = page.locator('authgate-account section[aria-labelledby=two-factor]');
    const { recovery } = await turnOnTwoFactor(page);
    expect(recovery.length).toBeGreaterThanOrEqual(3);
    // The login grows older than stepUpMaxAge (its time is kept in whole seconds: 12 s is surely past 10).
    await new Promise((r) => setTimeout(r, 12_000));
    await part.locator('input[name=code]').fill(recovery[0]!);
    await part.locator('text=Turn off').click();
    await page.locator('authgate-account [role=alert]:not(:empty)').waitFor();
    expect(await page.locator('authgate-account [role=alert]').textContent()).toMatch(/^The login is more than 10 seconds old/);
    const stepUp = page.locator('authgate-account form.step-up');
    await stepUp.locator('input[name=code]').waitFor();
    expect(await page.evaluate(() => document.querySelector('authgate-account')!.shadowRoot!.activeElement?.closest('form')?.className)).toBe('step-up');
    await stepUp.locator('input[name=code]').fill('000000');
    await stepUp.locator('button[type=submit]').click();
    await page.locator('authgate-account [role=alert]:not(:empty)').waitFor();
    expect(await page.locator('authgate-account [role=alert]').textContent()).not.toContain('Confirm it is you');
    await part.locator('text=/^On\\./').waitFor();
    await stepUp.locator('input[name=code]').fill(recovery[1]!);
    await stepUp.locator('button[type=submit]').click();
    await page.locator('authgate-account [role=status] >> text=Two-step verification is off.').waitFor();
    expect(await stepUp.count()).toBe(0);
    expect(await (await page.request.get(`${base}/auth/2fa`, { headers: { 'X-XSRF-TOKEN': (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value } })).json()).toMatchObject({
      enabled: false,
    });
    await context.close();
  }, 60_000);
});

run('the page’s own content in a screen’s slots', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const signInAlone = uiScript({ screen: 'sign-in' });
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const { app } = makeApp({ url });
        app.get('/ui-sign-in.mjs', (_req, res) => void res.type('js').send(signInAlone));
        app.get(
          '/alone',
          (_req, res) => void res.type('html').send(uiPage('Alone', '<main><h1>Alone</h1><authgate-sign-in></authgate-sign-in><authgate-account></authgate-account></main>', '/ui-sign-in.mjs')),
        );
        return app;
      },
      uiPage(
        'Acme',
        '<main><h1>Acme</h1><authgate-sign-in><strong slot="header" id="logo">Acme Inc.</strong><p slot="footer" id="terms">By signing in you accept our terms.</p></authgate-sign-in></main>',
      ),
    ));
  }, 60_000);
  afterAll(() => close?.());

  it('a screen loads alone (authgate/ui/sign-in): it works, and no other element is defined', async () => {
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await page.goto(`${base}/alone`);
    await page.fill('authgate-sign-in input[name=user]', 'solo');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=Signed in as solo.').waitFor();
    expect(await page.evaluate(() => ['authgate-sign-in', 'authgate-account'].map((name) => customElements.get(name) !== undefined))).toEqual([true, false]);
    await page.context().close();
  }, 60_000);

  it('shows slot="header" above the screen and slot="footer" below it, and axe finds nothing', async () => {
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await page.goto(base);
    const heading = page.locator('authgate-sign-in h2');
    await heading.waitFor();
    const logo = (await page.locator('#logo').boundingBox())!;
    const title = (await heading.boundingBox())!;
    const submit = (await page.locator('authgate-sign-in button[type=submit]').boundingBox())!;
    const terms = (await page.locator('#terms').boundingBox())!;
    expect(logo.y + logo.height).toBeLessThanOrEqual(title.y);
    expect(terms.y).toBeGreaterThanOrEqual(submit.y + submit.height);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);
});

run('what a link or an injected element cannot make the screens do (attacks on their new paths)', () => {
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  let evil: http.Server;
  let evilBase: string;
  const evilHits: string[] = [];
  const mails: string[] = [];

  beforeAll(async () => {
    evil = http.createServer((req, res) => {
      evilHits.push(`${req.method} ${req.url}`);
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.end('{}');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilBase = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    ({ base, browser, close } = await startUiApp(
      (url) => {
        const accountsPlugin = accounts({ store: 'memory://', sender: senderFunc((_to, text) => void mails.push(text)), baseUrl: `${url}/account`, bcryptRounds: 4 });
        const { app } = makeApp({ url, plugins: [accountsPlugin] });
        app.use('/account', accountsPlugin.router);
        app.get(
          '/joined',
          (_req, res) =>
            void res
              .type('html')
              .send(
                uiPage(
                  'Joined',
                  `<main><h1>Joined</h1><authgate-sign-in base-url="/" auth-path="/${new URL(evilBase).host.replace(/[.:]/g, '-')}/auth"></authgate-sign-in><authgate-sign-in id="dotted" auth-path="/auth/." redirect="/AUTH/logout"></authgate-sign-in></main>`,
                ),
              ),
        );
        app.get(
          '/injected',
          (_req, res) => void res.type('html').send(uiPage('Injected', `<main><h1>Injected</h1><authgate-sign-in auth-path="//${new URL(evilBase).host}/auth"></authgate-sign-in></main>`)),
        );
        return app;
      },
      uiPage('Links', '<main><h1>Links</h1><authgate-sign-in></authgate-sign-in><authgate-account></authgate-account></main>'),
      'localhost',
    ));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await new Promise((resolve) => evil?.close(resolve));
  });

  const signIn = async (page: Page, user: string): Promise<void> => {
    await page.fill('authgate-sign-in input[name=user]', user);
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=/^Signed in as /').waitFor();
  };

  it('return_to follows only an identity provider interaction of this site: a login route with a password in its query is not opened, and fresh=1 signs nobody out', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await signIn(page, 'victim');
    const requests: string[] = [];
    page.on('request', (r) => void requests.push(new URL(r.url()).pathname + new URL(r.url()).search));
    const forged = `${base}/?return_to=${encodeURIComponent('/auth/local/login?user=mallory&passwd=pw&from=/')}`;
    await page.goto(forged);
    await page.locator('authgate-sign-in [role=status] >> text=Signed in as victim.').waitFor();
    await page.waitForTimeout(500);
    expect(requests.filter((r) => r.startsWith('/auth/local/login'))).toEqual([]);
    expect(
      ((await (await page.request.get(`${base}/auth/user`, { headers: { 'X-XSRF-TOKEN': (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value } })).json()) as { name: string })
        .name,
    ).toBe('victim');
    // A fresh=1 link asks for a new sign-in, and ends no session by itself.
    await page.goto(`${base}/?return_to=${encodeURIComponent('/oidc/interaction/abc123')}&fresh=1`);
    await page.locator('authgate-sign-in >> text=An app asks you to sign in again here; you go back to it once you are in.').waitFor();
    expect((await page.request.get(`${base}/auth/user`, { headers: { 'X-XSRF-TOKEN': (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value } })).status()).toBe(200);
    // Without fresh=1, a signed-in person goes back to the interaction at once.
    const back = page.waitForRequest((r) => new URL(r.url()).pathname === '/oidc/interaction/abc123', { timeout: 15_000 });
    await page.goto(`${base}/?return_to=${encodeURIComponent(`${base}/oidc/interaction/abc123`)}`, { waitUntil: 'commit' });
    await back;
    // Closed once the navigation the screen started has landed (closing during it can stall chromium's context).
    await page.waitForURL(`${base}/oidc/interaction/abc123`);
    await page.waitForLoadState('load');
    await context.close();
  }, 60_000);

  it('an injected screen with an auth-path of another host uses /auth: what is typed into it goes nowhere else', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    await page.goto(`${base}/injected`);
    await page.fill('authgate-sign-in input[name=user]', 'victim');
    await page.fill('authgate-sign-in input[name=password]', 'pw');
    await page.click('authgate-sign-in button[type=submit]');
    await page.locator('authgate-sign-in [role=status] >> text=/^Signed in as /').waitFor();
    expect(evilHits).toEqual([]);
    expect(errors.some((e) => e.includes('auth-path') && e.includes('is not a path of the app'))).toBe(true);
    await context.close();
  }, 60_000);

  it('a relative base-url joined with an auth-path cannot name another host, a dotted auth-path is refused, and redirect never reaches a route of the auth router', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    await signIn(page, 'stays');
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    const requests: string[] = [];
    page.on('request', (r) => void requests.push(r.url()));
    await page.goto(`${base}/joined`);
    await page.locator('#dotted >> text=Signed in as stays.').waitFor();
    await page.waitForTimeout(500);
    // base-url="/" resolves to this origin: what follows it stays a path of this origin.
    expect(requests.filter((url) => new URL(url).origin !== base)).toEqual([]);
    expect(evilHits).toEqual([]);
    expect(errors.some((e) => e.includes('auth-path "/auth/." is not a path of the app'))).toBe(true);
    expect(errors.some((e) => e.includes('redirect "/AUTH/logout" is not a page of this site'))).toBe(true);
    expect((await page.request.get(`${base}/auth/user`, { headers: { 'X-XSRF-TOKEN': (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value } })).status()).toBe(200);
    await context.close();
  }, 60_000);

  it('a wrong password in "Link …" leaves no started link waiting for the next login in this browser', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(base);
    const xsrf = async (): Promise<string> => (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
    // An account of the account service, signed in by e-mail: its account screen links other logins.
    const made = await page.request.post(`${base}/account/signup`, {
      data: { Email: 'linker@example.com', Pwd: 'linker long passphrase', PwdRepeat: 'linker long passphrase' },
      headers: { 'X-XSRF-TOKEN': await xsrf() },
    });
    expect(made.status()).toBeLessThan(300);
    const activation = /(\/account\/active\/\S+)/.exec(mails.at(-1)!)![1]!;
    expect((await page.request.get(`${base}${activation}`, { headers: { Accept: 'application/json' } })).status()).toBe(200);
    await page.fill('authgate-sign-in input[name=user]', 'linker@example.com');
    await page.fill('authgate-sign-in input[name=password]', 'linker long passphrase');
    await page.click('authgate-sign-in button[type=submit]');
    const links = page.locator('authgate-account section[aria-labelledby=links]');
    await links.locator('input[name=user]').fill('mallory');
    await links.locator('input[name=password]').fill('not the password');
    await links.locator('button[type=submit]').click();
    await page.locator('authgate-account [role=alert]:not(:empty)').waitFor();
    await eventually(async () => expect((await context.cookies(base)).find((c) => c.name === 'LINK-TOKEN')).toBeUndefined(), 3000, 100);
    // The next login with that provider in this browser is a login of its own, linked to nobody.
    expect((await page.request.post(`${base}/auth/local/login`, { data: { user: 'mallory', passwd: 'pw' }, headers: { 'X-XSRF-TOKEN': await xsrf() } })).status()).toBe(200);
    expect(((await (await page.request.get(`${base}/auth/user`, { headers: { 'X-XSRF-TOKEN': await xsrf() } })).json()) as { name: string }).name).toBe('mallory');
    await context.close();
  }, 60_000);
});
