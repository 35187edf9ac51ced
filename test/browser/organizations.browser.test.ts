import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SHOTS } from '../support/browser';
import { browserIt, callOnPage, fromLog, signedInShown, signInOnPage, startBrowserExample, type BrowserExample } from '../support/example-browser';

describe('organizations on the example page in headless chromium', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    example = await startBrowserExample('127.0.0.1', 'o'.repeat(32));
    if (example) ({ base, browser } = example);
  }, 60_000);
  afterAll(() => example?.close());

  /** Creates an organization on the organization screen; it becomes the one acted in. */
  const createOrg = async (page: Page, name: string): Promise<void> => {
    await page.fill('authgate-organization input[name=name][autocomplete=organization]', name);
    await page.click('authgate-organization >> text=Create an organization');
    await page.locator(`authgate-organization h2 >> text=${name}`).waitFor();
  };

  browserIt(
    'creates an organization, invites by mail, the invitee accepts in a second browser; role change, switch and removal hold at once',
    async () => {
      const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signInOnPage(owner, base, 'demo');
      await createOrg(owner, 'Rocket Labs');
      await owner.locator('authgate-organization [role=status] >> text=Rocket Labs is created; you act in it.').waitFor();
      await owner.locator('authgate-organization section[aria-labelledby=members] li:has-text("demo") >> text=/owner/').waitFor();

      const mark = example!.logLines.length;
      await owner.fill('authgate-organization input[name=email]', 'Friend@Example.com');
      await owner.selectOption('authgate-organization select[name=role]', 'member');
      await owner.click('authgate-organization >> text=Invite');
      await owner.locator('authgate-organization section[aria-labelledby=invitations] li >> text=friend@example.com').waitFor();
      const link = await fromLog(example!, /(http:\/\/\S+\/#invitation=[A-Za-z0-9_-]+)/, mark);

      // The invitee opens the link before signing in; the page keeps the invitation through the login.
      const friend = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      await friend.goto(link);
      await friend.waitForSelector('body[data-session=signed-out]');
      // The token leaves the address bar; the sign-in screen says why the link was opened.
      expect(friend.url()).toBe(`${base}/`);
      await friend.locator('authgate-sign-in >> text=/You were invited to an organization/').waitFor();
      await friend.click('authgate-sign-in >> text=Continue with Dev');
      await friend.fill('#username', 'friend');
      await friend.click('#dev-login');
      await friend.waitForURL(`${base}/`);
      await signedInShown(friend);
      // Before accepting, the screen says what the link offers: the organization, the role, the address it went to.
      await friend.locator('authgate-organization >> text=You were invited to join Rocket Labs as member, at friend@example.com.').waitFor();
      await friend.locator('authgate-organization >> text=Sent by demo.').waitFor();
      await friend.locator('authgate-organization button >> text=Decline').waitFor();
      await friend.click('authgate-organization >> text=Accept the invitation');
      await friend.locator('authgate-organization [role=status] >> text=You joined Rocket Labs.').waitFor();
      await friend.locator('authgate-organization h2 >> text=Rocket Labs').waitFor();
      expect(await callOnPage(friend, '/workspace')).toContain('you act in Rocket Labs');
      expect(await friend.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await friend.screenshot({ path: join(SHOTS, 'phone-organizations.png'), fullPage: true });

      // The owner sees the new member, makes it an admin: the next call of the friend shows it.
      await owner.reload();
      const friendRow = owner.locator('authgate-organization section[aria-labelledby=members] li:has-text("friend")');
      await friendRow.waitFor();
      await friendRow.locator('select').selectOption('admin');
      await friendRow.locator('text=Change role').click();
      await owner.locator('authgate-organization [role=status] >> text=friend is now admin.').waitFor();
      expect(await callOnPage(friend, '/workspace')).toContain('"admin"');
      await owner.screenshot({ path: join(SHOTS, 'organizations.png'), fullPage: true });

      // A second organization becomes the active one; the switcher goes back to the first one's members.
      await createOrg(owner, 'Side Project');
      await owner.selectOption('authgate-org-switcher select', 'rocket-labs');
      await owner.locator('authgate-organization h2 >> text=Rocket Labs').waitFor();

      // Removed: the friend's next call is refused, though its token still names the organization.
      await owner.locator('authgate-organization section[aria-labelledby=members] li:has-text("friend") >> text=Remove').click();
      await owner.locator('authgate-organization [role=status] >> text=friend is removed.').waitFor();
      expect(await callOnPage(friend, '/workspace')).toContain('not_a_member');
      await owner.context().close();
      await friend.context().close();
    },
    90_000,
  );

  browserIt(
    'makes a SCIM token on the organization screen; a directory adds a person with it, who appears among the members, and deactivates them',
    async () => {
      const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signInOnPage(owner, base, 'admin');
      await createOrg(owner, 'Directory Co');
      const scim = owner.locator('authgate-organization section[aria-labelledby=scim]');
      await scim.locator('input[name=name]').fill('Directory');
      await scim.locator('button[type=submit]').click();
      const token = (await scim.locator('code.secret').textContent())!;
      expect(token).toMatch(/^scim_[0-9a-f]{64}$/);
      const scimBase = `${base}/auth/scim/v2`;
      expect(await scim.textContent()).toContain(scimBase);
      await owner.screenshot({ path: join(SHOTS, 'organization-scim-token.png'), fullPage: true });
      await scim.locator('text=Done').click();
      // "Done" draws the part again without the secret.
      await scim.locator('code.secret').waitFor({ state: 'detached' });
      await scim.locator('li >> text=/Directory \\(scim_/').waitFor();
      // As Okta's provisioning sends them: a user, then "active": false.
      const send = (method: string, url: string, body: unknown): Promise<Response> =>
        fetch(url, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' }, body: JSON.stringify(body) });
      const added = await send('POST', `${scimBase}/Users`, {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: 'pat.lee@directory.test',
        name: { givenName: 'Pat', familyName: 'Lee' },
        emails: [{ primary: true, value: 'pat.lee@directory.test', type: 'work' }],
        displayName: 'Pat Lee',
        active: true,
      });
      expect(added.status).toBe(201);
      const id = ((await added.json()) as { id: string }).id;
      await owner.reload();
      await owner.locator('authgate-organization section[aria-labelledby=members] li >> text=Pat Lee').waitFor();
      const patched = await send('PATCH', `${scimBase}/Users/${id}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] });
      expect(patched.status).toBe(200);
      await owner.reload();
      await owner.locator('authgate-organization section[aria-labelledby=members] li >> nth=0').waitFor();
      expect(await owner.locator('authgate-organization section[aria-labelledby=members]').textContent()).not.toContain('Pat Lee');
      await owner.screenshot({ path: join(SHOTS, 'organization-scim.png'), fullPage: true });
      await scim.locator('li >> text=Revoke').click();
      await owner.locator('authgate-organization [role=status] >> text=Directory is removed.').waitFor();
      expect((await send('GET', `${scimBase}/Users`, undefined)).status).toBe(401);
      await owner.context().close();
    },
    90_000,
  );
});
