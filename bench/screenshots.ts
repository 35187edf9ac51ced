import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { senderFunc } from '../src';
import { accounts } from '../src/accounts';
import { apiKeys } from '../src/api-keys';
import { organizations } from '../src/organizations';
import { makeApp } from '../test/support/auth-app';
import { startUiApp, uiPage } from '../test/support/ui-bundle';

/** Where docs/ui.md finds the pictures of the screens. */
const OUT = join(__dirname, '..', 'docs', 'screenshots');

/** The widths the screens are shown at: a phone's and a desktop's. */
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

/** The example's screens, each alone on a page, as the docs show them. */
const PAGE = uiPage(
  'Screens',
  '<main><h1>Screens</h1><authgate-user-button></authgate-user-button><authgate-sign-in></authgate-sign-in><authgate-sign-up></authgate-sign-up><authgate-account></authgate-account><authgate-organization></authgate-organization></main>',
);

async function shoot(browser: Browser, base: string, locale: string, viewport: keyof typeof VIEWPORTS): Promise<string[]> {
  const context = await browser.newContext({ locale, viewport: VIEWPORTS[viewport], deviceScaleFactor: 1 });
  const page = await context.newPage();
  const made: string[] = [];
  const save = async (target: Page | ReturnType<Page['locator']>, name: string): Promise<void> => {
    const file = join(OUT, `${name}-${locale.slice(0, 2)}-${viewport}.png`);
    await target.screenshot({ path: file });
    made.push(file);
  };
  await page.goto(base);
  await page.locator('authgate-sign-in h2').waitFor();
  await page.locator('authgate-sign-up h2').waitFor();
  await save(page.locator('authgate-sign-in'), 'sign-in');
  await save(page.locator('authgate-sign-up'), 'sign-up');
  await page.fill('authgate-sign-in input[name=user]', 'Dana');
  await page.fill('authgate-sign-in input[name=password]', 'pw');
  await page.click('authgate-sign-in button[type=submit]');
  await page.locator('authgate-account h2').waitFor();
  const xsrf = (await context.cookies(base)).find((c) => c.name === 'XSRF-TOKEN')!.value;
  const slug = `dana-${locale}-${viewport}`.toLowerCase();
  for (const [path, data] of [
    ['/auth/orgs', { name: viewport === 'desktop' ? 'Dana & Co' : 'Dana GmbH', slug }],
    [`/auth/orgs/${slug}/invitations`, { email: 'lee@example.com', role: 'member' }],
  ] as const) {
    const res = await page.request.post(`${base}${path}`, { data, headers: { 'X-XSRF-TOKEN': xsrf } });
    if (!res.ok()) throw new Error(`POST ${path}: ${res.status()} ${await res.text()}`);
  }
  await page.reload();
  await page.locator('authgate-account section[aria-labelledby=sessions] li').first().waitFor();
  await page.locator('authgate-organization section[aria-labelledby=invitations] li').first().waitFor();
  await save(page.locator('authgate-account'), 'account');
  await save(page.locator('authgate-organization'), 'organization');
  await page.click('authgate-user-button button.user');
  await page.locator('authgate-user-button .menu button').first().waitFor();
  // The open list hangs below the button, outside its box: the picture takes both.
  const boxes = [await page.locator('authgate-user-button').boundingBox(), await page.locator('authgate-user-button .menu').boundingBox()].filter((b) => b !== null);
  const [x, y] = [Math.min(...boxes.map((b) => b.x)), Math.min(...boxes.map((b) => b.y))];
  const clip = { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
  const file = join(OUT, `user-button-${locale.slice(0, 2)}-${viewport}.png`);
  await page.screenshot({ path: file, clip });
  made.push(file);
  await context.close();
  return made;
}

/** `npm run docs:screenshots`: the pictures of docs/ui.md, in English at a desktop's width and in German at a phone's. */
async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const { base, browser, close } = await startUiApp((url) => {
    const { app } = makeApp(
      {
        url,
        plugins: [accounts({ store: 'memory://', sender: senderFunc(() => undefined), baseUrl: `${url}/account`, bcryptRounds: 4 }), organizations({ sender: senderFunc(() => undefined) }), apiKeys()],
        twoFactor: { key: 'screenshots-two-factor-key-0123456789' },
      },
      (auth) => {
        auth.addVerifyProvider(
          'email',
          'link {{.Token}}',
          senderFunc(() => undefined),
        );
        auth.addProvider('github', 'screens', 'screens-secret');
      },
    );
    return app;
  }, PAGE);
  try {
    const made = [...(await shoot(browser, base, 'en-US', 'desktop')), ...(await shoot(browser, base, 'de-DE', 'phone'))];
    console.log(made.map((f) => f.replace(`${join(__dirname, '..')}/`, '')).join('\n'));
  } finally {
    await close();
  }
}

void main();
