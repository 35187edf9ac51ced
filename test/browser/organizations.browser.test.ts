import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { SHOTS } from '../support/browser';
import { browserIt, signInOnPage, startBrowserExample, type BrowserExample } from '../support/example-browser';

describe('organizations on the example page in headless chromium', () => {
  let example: BrowserExample | undefined;
  let base: string;
  let browser: Browser;
  let logLines: string[] = [];

  beforeAll(async () => {
    example = await startBrowserExample('127.0.0.1', 'o'.repeat(32));
    if (example) ({ base, browser, logLines } = example);
  }, 60_000);
  afterAll(() => example?.close());

  const fromLog = async (pattern: RegExp, after: number): Promise<string> => {
    for (let i = 0; i < 50; i++) {
      const found = pattern.exec(logLines.slice(after).join('\n'))?.[1];
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`nothing like ${pattern} in the log`);
  };

  browserIt(
    'creates an organization, invites by mail, the invitee accepts in a second browser; role change, switch and removal hold at once',
    async () => {
      const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signInOnPage(owner, base, 'demo');
      await owner.fill('#org-name', 'Rocket Labs');
      await owner.click('#create-org');
      await owner.waitForFunction("document.getElementById('orgs-notice').textContent.includes('Rocket Labs was created')");
      await owner.waitForFunction("document.querySelector('#orgs li.org')?.textContent.includes('rocket-labs), owner, active')");
      await owner.waitForFunction("document.getElementById('members').textContent.includes('demo: owner (you)')");

      const mark = logLines.length;
      await owner.fill('#invite-email', 'Friend@Example.com');
      await owner.selectOption('#invite-role', 'member');
      await owner.click('#send-invite');
      await owner.waitForFunction("document.getElementById('orgs-notice').textContent.includes('mailed to friend@example.com')");
      const link = await fromLog(/(http:\/\/\S+\/#invitation=[A-Za-z0-9_-]+)/, mark);

      // The invitee opens the link before signing in; the page keeps the invitation through the login.
      const friend = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
      await friend.goto(link);
      await friend.waitForSelector('#logged-out:not(.hidden)');
      expect(friend.url()).toBe(`${base}/`);
      // The sign-in card says why the link was opened.
      expect(await friend.textContent('#invited:not(.hidden)')).toContain('You were invited to join an organization');
      await friend.click('#login-dev');
      await friend.fill('#username', 'friend');
      await friend.click('#dev-login');
      await friend.waitForURL(`${base}/`);
      await friend.waitForSelector('#invitation-box:not(.hidden)');
      await friend.click('#accept-invitation');
      await friend.waitForFunction("document.getElementById('orgs-notice').textContent.includes('You joined Rocket Labs as member')");
      await friend.click('#call-workspace');
      // The answer shows next to the button, in view (on a phone the page's top output is far away).
      await friend.waitForFunction("document.getElementById('workspace-output').textContent.includes('you act in Rocket Labs')");
      const box = await friend.locator('#workspace-output').boundingBox();
      expect(box && box.y >= 0 && box.y < 844).toBe(true);
      await friend.screenshot({ path: join(SHOTS, 'phone-organizations.png'), fullPage: true });

      // The owner sees the new member, makes it an admin: the next call of the friend shows it.
      await owner.reload();
      await owner.waitForFunction("document.getElementById('members').textContent.includes('friend: member')");
      await owner.click('#members li.member button.change-role');
      await owner.waitForFunction("document.getElementById('orgs-notice').textContent.includes('is now admin')");
      await friend.click('#call-workspace');
      await friend.waitForFunction("document.getElementById('workspace-output').textContent.includes('\"admin\"')");
      await owner.screenshot({ path: join(SHOTS, 'organizations.png'), fullPage: true });

      // A second organization becomes the active one; switching back shows the first one's members again.
      await owner.fill('#org-name', 'Side Project');
      await owner.click('#create-org');
      await owner.waitForFunction("document.getElementById('org-title').textContent === 'Members of Side Project'");
      await owner.click('#orgs li.org button.activate-org');
      await owner.waitForFunction("document.getElementById('org-title').textContent === 'Members of Rocket Labs'");

      // Removed: the friend's next call is refused, though its token still names the organization.
      await owner.click('#members li.member button.remove-member');
      await owner.waitForFunction("document.getElementById('orgs-notice').textContent.includes('was removed')");
      await friend.click('#call-workspace');
      await friend.waitForFunction("document.getElementById('workspace-output').textContent.includes('not_a_member')");
      await owner.context().close();
      await friend.context().close();
    },
    90_000,
  );

  browserIt(
    "makes a SCIM token on the organization card; the card's curl lines add a person, who appears among the members, and deactivate them",
    async () => {
      const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signInOnPage(owner, base, 'admin');
      await owner.fill('#org-name', 'Directory Co');
      await owner.click('#create-org');
      await owner.waitForSelector('#scim-box:not(.hidden)');
      await owner.click('#make-scim-token');
      await owner.waitForSelector('#scim-made:not(.hidden)');
      const token = (await owner.textContent('#scim-token')) as string;
      const scimBase = (await owner.textContent('#scim-base')) as string;
      expect(token).toMatch(/^scim_[0-9a-f]{64}$/);
      expect(scimBase).toBe(`${base}/auth/scim/v2`);
      await owner.waitForFunction("document.getElementById('scim-tokens').textContent.includes('Directory (scim_')");
      await owner.screenshot({ path: join(SHOTS, 'organization-scim-token.png'), fullPage: true });
      // The lines the card shows, sent as a directory sends them.
      const lines = ((await owner.textContent('#scim-curl')) as string).split('\n');
      const bodyOf = (index: number): string => /-d '(.*)'$/.exec(lines[index] as string)?.[1] as string;
      const send = (method: string, url: string, body: string): Promise<Response> =>
        fetch(url, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/scim+json' }, body });
      expect(lines[1]).toContain(`curl -s -X POST ${scimBase}/Users`);
      const added = await send('POST', `${scimBase}/Users`, bodyOf(2));
      expect(added.status).toBe(201);
      const id = ((await added.json()) as { id: string }).id;
      await owner.reload();
      await owner.waitForFunction("document.getElementById('members').textContent.includes('Pat Lee: member')");
      expect(lines[4]).toContain(`curl -s -X PATCH ${scimBase}/Users/<id>`);
      expect((await send('PATCH', `${scimBase}/Users/${id}`, bodyOf(5))).status).toBe(200);
      await owner.reload();
      await owner.waitForFunction("document.getElementById('members').textContent.includes('admin: owner (you)')");
      expect(await owner.textContent('#members')).not.toContain('Pat Lee');
      await owner.screenshot({ path: join(SHOTS, 'organization-scim.png'), fullPage: true });
      await owner.click('#scim-tokens button.revoke-scim-token');
      await owner.waitForFunction("document.getElementById('orgs-notice').textContent.includes('The SCIM token was revoked')");
      expect((await send('POST', `${scimBase}/Users`, bodyOf(2))).status).toBe(401);
      await owner.context().close();
    },
    90_000,
  );
});
